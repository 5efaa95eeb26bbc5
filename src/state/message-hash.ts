/**
 * The fingerprint of a rendered message, under which the state store remembers that a contact
 * was sent it: the writer and the store call this one function so a re-run recognises the same
 * message.
 */
import { createHash } from 'node:crypto';
import type { MessageElement } from '../api/wire-types.js';
import { canonicalJson, type CanonicalValue } from './canonical-json.js';

/**
 * SHA-256 (hex) of the message as the person receives it (type, text or url, quick replies in
 * their order, a template's name, language and components). `forceCancelSurvey` is left out: it
 * changes nothing in what is received.
 */
export function messageHash(message: MessageElement): string {
  return createHash('sha256').update(canonicalJson(received(message))).digest('hex');
}

function received(message: MessageElement): CanonicalValue {
  switch (message.type) {
    case 'text':
      return { type: message.type, text: message.text };
    case 'quick_reply':
      return { type: message.type, title: message.title, replies: [...message.replies] };
    case 'whatsapp_template': {
      const { name, languageCode, components } = message.template;
      return { type: message.type, name, languageCode, components: components.map((component) => ({ type: component.type, text: component.text ?? null })) };
    }
    default:
      return { type: message.type, url: message.url };
  }
}
