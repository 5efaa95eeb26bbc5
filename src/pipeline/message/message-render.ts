/**
 * Renders a job's `message:` for one row: placeholders filled from the row's columns and mapped
 * fields, then checked against the Messages API limits. Pure; a problem is the row's message
 * failure, not an exception.
 */
import { languageCodeProblem, templateNameProblem } from '../../api/whatsapp-template-rules.js';
import { whatsappTemplateElement, type MessageElement } from '../../api/wire-types.js';
import type { MessageSpec, MessageTemplateSpec } from '../../config/job-types.js';
import { MAX_QUICK_REPLIES, MAX_QUICK_REPLY_LENGTH } from '../../limits.js';

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

export type RenderedMessage = { ok: true; element: MessageElement } | { ok: false; error: string };

export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => values[name.trim()] ?? '');
}

export function renderMessage(spec: MessageSpec, values: Readonly<Record<string, string>>): RenderedMessage {
  switch (spec.type) {
    case 'text': {
      const text = fillTemplate(spec.text ?? '', values).trim();
      if (text === '') return { ok: false, error: `the message text ${JSON.stringify(spec.text ?? '')} is empty for this row; fill the columns it uses` };
      return { ok: true, element: { type: 'text', text } };
    }
    case 'quick_reply': {
      const title = fillTemplate(spec.text ?? '', values).trim();
      if (title === '') return { ok: false, error: `the message text ${JSON.stringify(spec.text ?? '')} is empty for this row; fill the columns it uses` };
      const replies = spec.quickReplies.map((reply) => fillTemplate(reply, values).trim());
      if (replies.length > MAX_QUICK_REPLIES) return { ok: false, error: `${replies.length} quick replies, at most ${MAX_QUICK_REPLIES} are allowed` };
      const long = replies.find((reply) => [...reply].length > MAX_QUICK_REPLY_LENGTH);
      if (long !== undefined) {
        return { ok: false, error: `quick reply ${JSON.stringify(long)} has ${[...long].length} characters, at most ${MAX_QUICK_REPLY_LENGTH} are allowed; shorten it or the columns it uses` };
      }
      if (replies.some((reply) => reply === '')) return { ok: false, error: 'a quick reply is empty for this row; fill the columns it uses' };
      return { ok: true, element: { type: 'quick_reply', title, replies } };
    }
    case 'whatsapp_template':
      return renderTemplate(spec.template, values);
    default: {
      const url = fillTemplate(spec.url ?? '', values).trim();
      if (!/^https?:\/\/[^/\s]+/i.test(url)) {
        return { ok: false, error: `the attachment URL ${JSON.stringify(url)} is not an http(s) URL for this row; fill the columns it uses` };
      }
      return { ok: true, element: { type: spec.type, url } };
    }
  }
}

/** Each part of the template filled from the row, then checked as WhatsApp would: the element is built by `whatsappTemplateElement`. */
function renderTemplate(template: MessageTemplateSpec | undefined, values: Readonly<Record<string, string>>): RenderedMessage {
  // The config refuses a whatsapp_template without its template.
  if (template === undefined) return { ok: false, error: 'type: whatsapp_template needs template: {name, language, body}' };
  const name = fillTemplate(template.name, values).trim();
  const languageCode = fillTemplate(template.language, values).trim();
  const body = fillTemplate(template.body, values).trim();
  const problem = templateNameProblem(name) ?? languageCodeProblem(languageCode);
  if (problem !== undefined) return { ok: false, error: `${problem} (for this row; fill the columns it uses)` };
  if (body === '') return { ok: false, error: `the template body ${JSON.stringify(template.body)} is empty for this row; fill the columns it uses` };
  return { ok: true, element: whatsappTemplateElement({ name, languageCode, body }) };
}

/** Whether a row's outcome calls for the message, by `message.when`. */
export function messageWanted(when: MessageSpec['when'], outcome: string): boolean {
  switch (when) {
    case 'created':
      return outcome === 'created';
    case 'updated':
      return outcome === 'updated';
    case 'changed':
      return outcome === 'created' || outcome === 'updated';
    case 'always':
      return outcome === 'created' || outcome === 'updated' || outcome === 'unchanged';
  }
}
