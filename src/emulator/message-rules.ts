/**
 * Checks the body of operations 7 to 9: exactly one element, the element layouts of the platform
 * notes (and the WhatsApp template of client code and a reseller's page), the quick-reply limits,
 * and attachment URLs whose extension does not contradict their type.
 */
import type { MessageElement, TemplateComponent, WhatsappTemplateMessage } from '../api/wire-types.js';
import { ATTACHMENT_TYPES, MAX_MESSAGES_PER_CALL, MAX_QUICK_REPLIES, MAX_QUICK_REPLY_LENGTH } from '../limits.js';
import type { AttachmentType } from '../limits.js';
import { forbidden } from './envelopes.js';
import { asObject, describe } from './request-body.js';

export interface SendRequest {
  body: MessageElement[];
  forceCancelSurvey?: boolean;
}

/**
 * File extensions accepted per attachment type when the URL's path has one; `file` takes any URL,
 * and a URL without an extension (`http://abc.com`, as in every public sample) is taken for any type.
 */
export const ATTACHMENT_EXTENSIONS: Readonly<Record<Exclude<AttachmentType, 'file'>, readonly string[]>> = {
  image: ['jpg', 'jpeg', 'png', 'gif', 'webp'],
  video: ['mp4', 'mov', 'webm'],
  audio: ['mp3', 'ogg', 'wav', 'm4a'],
};

export const UNMATCHED_FILE_TYPE = 'unmatched file type';

export function readSendRequest(raw: unknown): SendRequest {
  const request = asObject(raw, '{"body": [message]}');
  const { body, forceCancelSurvey } = request;
  if (!Array.isArray(body)) throw forbidden(`body must be a list holding one message element, got ${describe(body)}`);
  if (body.length !== MAX_MESSAGES_PER_CALL) {
    throw forbidden(`body holds ${body.length} message elements; exactly ${MAX_MESSAGES_PER_CALL} is accepted per call`);
  }
  if (forceCancelSurvey !== undefined && typeof forceCancelSurvey !== 'boolean') {
    throw forbidden(`forceCancelSurvey must be true or false, got ${describe(forceCancelSurvey)}`);
  }
  const element = readElement(body[0]);
  return forceCancelSurvey === undefined ? { body: [element] } : { body: [element], forceCancelSurvey };
}

function readElement(element: unknown): MessageElement {
  const fields = asObjectElement(element);
  const type = fields.type;
  if (type === 'text') {
    if (typeof fields.text !== 'string' || fields.text === '') {
      throw forbidden(`body[0].text must be a non-empty string, got ${describe(fields.text)}`);
    }
    return { type, text: fields.text };
  }
  if (type === 'quick_reply') return readQuickReply(fields);
  if (type === 'whatsapp_template') return readWhatsappTemplate(fields.template);
  if ((ATTACHMENT_TYPES as readonly unknown[]).includes(type)) return readAttachment(type as AttachmentType, fields.url);
  throw forbidden(`body[0].type "${String(type)}" is not a message type; use text, quick_reply, whatsapp_template, ${ATTACHMENT_TYPES.join(', ')}`);
}

function asObjectElement(element: unknown): Record<string, unknown> {
  if (typeof element !== 'object' || element === null || Array.isArray(element)) {
    throw forbidden(`body[0] must be a message object with a "type", got ${describe(element)}`);
  }
  return element as Record<string, unknown>;
}

function readQuickReply(fields: Record<string, unknown>): MessageElement {
  const { title, replies } = fields;
  if (typeof title !== 'string' || title === '') throw forbidden(`body[0].title must be a non-empty string, got ${describe(title)}`);
  if (!Array.isArray(replies) || replies.length === 0) {
    throw forbidden(`body[0].replies must be a non-empty list of strings, got ${describe(replies)}`);
  }
  if (replies.length > MAX_QUICK_REPLIES) {
    throw forbidden(`body[0].replies holds ${replies.length} quick replies; at most ${MAX_QUICK_REPLIES} are accepted`);
  }
  const checked = replies.map((reply: unknown, index) => {
    if (typeof reply !== 'string' || reply === '') throw forbidden(`body[0].replies[${index}] must be a non-empty string, got ${describe(reply)}`);
    if ([...reply].length > MAX_QUICK_REPLY_LENGTH) {
      throw forbidden(`body[0].replies[${index}] has ${[...reply].length} characters; a quick reply holds at most ${MAX_QUICK_REPLY_LENGTH}`);
    }
    return reply;
  });
  return { type: 'quick_reply', title, replies: checked };
}

function readAttachment(type: AttachmentType, url: unknown): MessageElement {
  if (typeof url !== 'string') throw forbidden(`body[0].url must be a string, got ${describe(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw forbidden(`body[0].url "${url}" is not a URL; give an absolute http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw forbidden(`body[0].url must be an http or https URL, got "${parsed.protocol}"`);
  }
  // Only an extension that contradicts the type is the spec's 403 "unmatched file type".
  const extension = extensionOf(parsed.pathname);
  if (type !== 'file' && extension !== undefined && !ATTACHMENT_EXTENSIONS[type].includes(extension)) {
    throw forbidden(`${UNMATCHED_FILE_TYPE}: a ${type} needs a .${ATTACHMENT_EXTENSIONS[type].join(', .')} URL, got .${extension}`);
  }
  return { type, url };
}

function extensionOf(pathname: string): string | undefined {
  const segment = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  if (dot <= 0 || dot === segment.length - 1) return undefined;
  return segment.slice(dot + 1).toLowerCase();
}

/**
 * `{type: 'whatsapp_template', template: {name, languageCode, components: [{type: 'body', text}]}}`
 * (client code and a reseller's message-template page): a name, a language and a body component
 * with text. Which templates the business has had approved is not known here: any name is taken.
 */
function readWhatsappTemplate(template: unknown): WhatsappTemplateMessage {
  if (typeof template !== 'object' || template === null || Array.isArray(template)) {
    throw forbidden(`body[0].template must be an object {name, languageCode, components}, got ${describe(template)}`);
  }
  const { name, languageCode, components } = template as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw forbidden(`body[0].template.name must be a non-empty string, got ${describe(name)}`);
  if (typeof languageCode !== 'string' || languageCode === '') {
    throw forbidden(`body[0].template.languageCode must be a non-empty string, got ${describe(languageCode)}`);
  }
  if (!Array.isArray(components)) throw forbidden(`body[0].template.components must be a list, got ${describe(components)}`);
  const read = components.map((component: unknown, index): TemplateComponent => {
    const where = `body[0].template.components[${index}]`;
    if (typeof component !== 'object' || component === null || Array.isArray(component)) throw forbidden(`${where} must be an object {type, text}, got ${describe(component)}`);
    const { type, text } = component as Record<string, unknown>;
    if (typeof type !== 'string' || type === '') throw forbidden(`${where}.type must be a non-empty string, got ${describe(type)}`);
    if (text !== undefined && typeof text !== 'string') throw forbidden(`${where}.text must be a string, got ${describe(text)}`);
    return text === undefined ? { type } : { type, text };
  });
  const body = read.find((component) => component.type === 'body');
  if (body?.text === undefined || body.text === '') throw forbidden('body[0].template.components has no body component with text: [{"type": "body", "text": "..."}]');
  return { type: 'whatsapp_template', template: { name, languageCode, components: read } };
}
