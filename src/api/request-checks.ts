/**
 * Checks a request against the limits of the API before it leaves, so a call the platform would
 * refuse costs no API call and fails with a message naming the limit.
 */
import {
  ATTACHMENT_TYPES,
  MAX_FIELDS_PER_CALL,
  MAX_QUICK_REPLIES,
  MAX_QUICK_REPLY_LENGTH,
  MAX_TAGS_PER_CALL,
  type AttachmentType,
} from '../limits.js';
import { RequestInvalidError } from './errors.js';
import { languageCodeProblem, templateNameProblem } from './whatsapp-template-rules.js';
import type { ApiOperation, WhatsappTemplate } from './wire-types.js';

function invalid(operation: ApiOperation, problem: string, limit?: string): RequestInvalidError {
  return new RequestInvalidError(limit === undefined ? { operation, problem } : { operation, problem, limit });
}

/** Characters as a person counts them: code points, not UTF-16 units. */
function characters(text: string): number {
  return [...text].length;
}

export function checkContactId(operation: ApiOperation, id: string): void {
  if (typeof id !== 'string' || id.trim() === '') {
    throw invalid(operation, `the contact id must be a non-empty string, got ${JSON.stringify(id)}`);
  }
}

export function checkSearch(field: string, value: string, page: number): void {
  if (typeof field !== 'string' || field.trim() === '') {
    throw invalid('searchContacts', `the custom field name to search by must be non-empty, got ${JSON.stringify(field)}`);
  }
  if (typeof value !== 'string') {
    throw invalid('searchContacts', `the value to search for must be a string, got ${typeof value}`);
  }
  if (!Number.isInteger(page) || page < 1) {
    throw invalid('searchContacts', `the page must be a whole number from 1 up, got ${String(page)}`);
  }
}

export function checkFields(operation: ApiOperation, fields: Record<string, string>): void {
  const names = Object.keys(fields);
  if (names.length === 0) {
    throw invalid(operation, 'no custom field to write: give at least 1', 'MAX_FIELDS_PER_CALL');
  }
  if (names.length > MAX_FIELDS_PER_CALL) {
    throw invalid(
      operation,
      `${names.length} custom fields in one call, more than MAX_FIELDS_PER_CALL (${MAX_FIELDS_PER_CALL}); ` +
        `split them into calls of at most ${MAX_FIELDS_PER_CALL}`,
      'MAX_FIELDS_PER_CALL',
    );
  }
  const blank = names.find((name) => name.trim() === '');
  if (blank !== undefined) {
    throw invalid(operation, `a custom field name is empty (${JSON.stringify(blank)})`);
  }
}

export function checkTags(operation: ApiOperation, tags: readonly string[]): void {
  if (tags.length === 0) {
    throw invalid(operation, 'no tag given: give at least 1', 'MAX_TAGS_PER_CALL');
  }
  if (tags.length > MAX_TAGS_PER_CALL) {
    throw invalid(
      operation,
      `${tags.length} tags in one call, more than MAX_TAGS_PER_CALL (${MAX_TAGS_PER_CALL}); ` +
        `split them into calls of at most ${MAX_TAGS_PER_CALL}`,
      'MAX_TAGS_PER_CALL',
    );
  }
  const index = tags.findIndex((tag) => typeof tag !== 'string' || tag.trim() === '');
  if (index !== -1) {
    throw invalid(operation, `tag ${index + 1} is empty (${JSON.stringify(tags[index])})`);
  }
}

export function checkText(text: string): void {
  if (typeof text !== 'string' || text.trim() === '') {
    throw invalid('sendMessage', `the message text must be non-empty, got ${JSON.stringify(text)}`);
  }
}

export function checkAttachment(type: AttachmentType, url: string): void {
  if (!(ATTACHMENT_TYPES as readonly string[]).includes(type)) {
    throw invalid(
      'sendMessage',
      `attachment type ${JSON.stringify(type)} is not one of ATTACHMENT_TYPES (${ATTACHMENT_TYPES.join(', ')})`,
      'ATTACHMENT_TYPES',
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    // The URL is not echoed: a signed download link is a credential of its own.
    throw invalid('sendMessage', `the ${type} attachment URL must be an absolute http(s) URL`);
  }
}

export function checkQuickReplies(title: string, replies: readonly string[]): void {
  if (typeof title !== 'string' || title.trim() === '') {
    throw invalid('sendMessage', `the quick-reply message text must be non-empty, got ${JSON.stringify(title)}`);
  }
  if (replies.length === 0) {
    throw invalid('sendMessage', 'no quick reply given: give at least 1', 'MAX_QUICK_REPLIES');
  }
  if (replies.length > MAX_QUICK_REPLIES) {
    throw invalid(
      'sendMessage',
      `${replies.length} quick replies, more than MAX_QUICK_REPLIES (${MAX_QUICK_REPLIES})`,
      'MAX_QUICK_REPLIES',
    );
  }
  replies.forEach((reply, index) => {
    if (typeof reply !== 'string' || reply.trim() === '') {
      throw invalid('sendMessage', `quick reply ${index + 1} is empty (${JSON.stringify(reply)})`);
    }
    const length = characters(reply);
    if (length > MAX_QUICK_REPLY_LENGTH) {
      throw invalid(
        'sendMessage',
        `quick reply ${index + 1} ${JSON.stringify(reply)} has ${length} characters, ` +
          `more than MAX_QUICK_REPLY_LENGTH (${MAX_QUICK_REPLY_LENGTH})`,
        'MAX_QUICK_REPLY_LENGTH',
      );
    }
  });
}

export function checkTemplate(template: WhatsappTemplate): void {
  const problem = templateNameProblem(template.name) ?? languageCodeProblem(template.languageCode);
  if (problem !== undefined) throw invalid('sendMessage', problem);
  if (typeof template.body !== 'string' || template.body.trim() === '') {
    throw invalid('sendMessage', `the body of template ${JSON.stringify(template.name)} must be non-empty, got ${JSON.stringify(template.body)}`);
  }
}
