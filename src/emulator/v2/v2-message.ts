/**
 * v2's send body `{channelId?, message}` (the SDK's `SendMessageRequest`, src/types/message.ts)
 * and the message as recorded and read back (`GetMessageResponse`). The message types and their
 * parts are the SDK's; what the platform checks beyond them is not published, so the emulator
 * checks only what a message cannot do without.
 */
import { ATTACHMENT_TYPES, MAX_QUICK_REPLIES, MAX_QUICK_REPLY_LENGTH } from '../../limits.js';
import { describe } from '../request-body.js';
import { badRequest } from './v2-errors.js';

export type V2MessageStatus = 'pending' | 'sent' | 'delivered' | 'read' | 'failed';

/** A message sent through v2. */
export interface V2Message {
  messageId: number;
  /** The store id of the contact. */
  contactId: string;
  channelId: number;
  /** The `message` object as sent (checked). */
  message: Record<string, unknown>;
  /** The status history, oldest first; timestamps in Unix seconds. */
  status: Array<{ value: V2MessageStatus; timestamp: number }>;
  /** Emulator clock, milliseconds since the epoch. */
  sentAt: number;
}

export interface V2SendRequest {
  /** Undefined or null: the channel the contact last used. */
  channelId: number | null | undefined;
  message: Record<string, unknown>;
}

const MESSAGE_TYPES = ['text', 'attachment', 'custom_payload', 'quick_reply', 'email', 'whatsapp_template'] as const;

export function readV2SendRequest(body: unknown): V2SendRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the request body must be a JSON object {"channelId"?, "message"}, got ${describe(body)}`);
  }
  const { channelId, message, ...others } = body as Record<string, unknown>;
  const [unknown] = Object.keys(others);
  if (unknown !== undefined) throw badRequest(`"${unknown}" is not a part of a send; the body is {"channelId"?, "message"}`);
  if (channelId !== undefined && channelId !== null && !(typeof channelId === 'number' && Number.isSafeInteger(channelId))) {
    throw badRequest(`channelId must be a channel's number or null, got ${JSON.stringify(channelId)}`);
  }
  return { channelId, message: readMessage(message) };
}

function readMessage(message: unknown): Record<string, unknown> {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw badRequest(`message must be an object with a "type", got ${describe(message)}`);
  }
  const fields = message as Record<string, unknown>;
  const type = fields.type;
  const text = (name: string, value: unknown): void => {
    if (typeof value !== 'string' || value === '') throw badRequest(`message.${name} must be a non-empty string, got ${describe(value)}`);
  };
  switch (type) {
    case 'text':
    case 'email':
      text('text', fields.text);
      break;
    case 'attachment': {
      const attachment = fields.attachment as Record<string, unknown> | undefined;
      if (typeof attachment !== 'object' || attachment === null || !(ATTACHMENT_TYPES as readonly unknown[]).includes(attachment.type)) {
        throw badRequest(`message.attachment must be {"type": ${ATTACHMENT_TYPES.join('|')}, "url"}, got ${JSON.stringify(attachment)}`);
      }
      if (typeof attachment.url !== 'string' || !/^https?:\/\/\S+$/.test(attachment.url)) {
        throw badRequest(`message.attachment.url must be an http(s) URL, got ${JSON.stringify(attachment.url)}`);
      }
      break;
    }
    case 'quick_reply': {
      text('title', fields.title);
      const replies = fields.replies;
      if (!Array.isArray(replies) || replies.length === 0 || replies.length > MAX_QUICK_REPLIES) {
        throw badRequest(`message.replies must be a list of 1 to ${MAX_QUICK_REPLIES} strings, got ${describe(replies)}`);
      }
      replies.forEach((reply: unknown, index) => {
        if (typeof reply !== 'string' || reply === '' || [...reply].length > MAX_QUICK_REPLY_LENGTH) {
          throw badRequest(`message.replies[${index}] must be a string of 1 to ${MAX_QUICK_REPLY_LENGTH} characters`);
        }
      });
      break;
    }
    case 'custom_payload':
      if (typeof fields.payload !== 'object' || fields.payload === null || Array.isArray(fields.payload)) {
        throw badRequest(`message.payload must be an object, got ${describe(fields.payload)}`);
      }
      break;
    case 'whatsapp_template': {
      const template = fields.template as Record<string, unknown> | undefined;
      if (typeof template !== 'object' || template === null) throw badRequest(`message.template must be {"name", "languageCode", "components"?}, got ${describe(template)}`);
      text('template.name', template.name);
      text('template.languageCode', template.languageCode);
      if (template.components !== undefined && !Array.isArray(template.components)) {
        throw badRequest(`message.template.components must be a list, got ${describe(template.components)}`);
      }
      break;
    }
    default:
      throw badRequest(`message.type ${JSON.stringify(type)} is not a message type; use ${MESSAGE_TYPES.join(', ')}`);
  }
  return structuredClone(fields);
}
