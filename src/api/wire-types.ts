/**
 * The shapes of the Contacts and Messaging API v1 on the wire (spec section 2, platform notes).
 * Shared by the client and the emulator so the two cannot drift apart.
 */
import type { AttachmentType } from '../limits.js';

/** A contact as the platform returns it. Values of custom fields are always strings. */
export interface Contact {
  id: string;
  custom_fields: Record<string, string>;
  tags: string[];
  /** Creation time, Unix seconds. */
  created_at: number;
}

/** One element of `custom_fields` in a create or update request. */
export interface CustomFieldAssignment {
  name: string;
  value: string;
}

export interface PageLinks {
  first: string | null;
  last: string | null;
  prev: string | null;
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}

/** Answer of operation 1, get contacts by custom field. */
export interface ContactPage {
  data: Contact[];
  links: PageLinks;
  meta: PageMeta;
}

/** `{data: {id}}`: answer of create (6) and update (3). */
export interface IdEnvelope {
  data: { id: string };
}

/** `{status, message, data: []}`: tag operations, message sends and errors. */
export interface StatusEnvelope {
  status: string;
  message: string | string[];
  data: unknown[];
}

export interface TextMessage {
  type: 'text';
  text: string;
}
export interface AttachmentMessage {
  type: AttachmentType;
  url: string;
}
/** Layout from client code of the platform (platform notes), not from the spec. */
export interface QuickReplyMessage {
  type: 'quick_reply';
  title: string;
  replies: string[];
}
/**
 * One component of a WhatsApp message template. The body component carries the template's text
 * as approved, with the row's values in it.
 */
export interface TemplateComponent {
  type: string;
  text?: string;
}
/**
 * A WhatsApp message template: the only message a business may start a conversation with on a
 * WhatsApp channel. Layout from client code and a reseller's message-template page (issue 28),
 * not from the spec or the platform notes: it is built only by `whatsappTemplateElement`, the one
 * place to change it.
 */
export interface WhatsappTemplateMessage {
  type: 'whatsapp_template';
  template: {
    /** The approved template's name, e.g. `welcome_v2`. */
    name: string;
    /** The language of the approved version, e.g. `en` or `pt_BR`. */
    languageCode: string;
    components: TemplateComponent[];
  };
}
export type MessageElement = TextMessage | AttachmentMessage | QuickReplyMessage | WhatsappTemplateMessage;

/** What a job says of a template: which one, in which language, and its body text. */
export interface WhatsappTemplate {
  readonly name: string;
  readonly languageCode: string;
  readonly body: string;
}

/** The message element of a WhatsApp template: `{type, template: {name, languageCode, components: [{type: 'body', text}]}}`. */
export function whatsappTemplateElement(template: WhatsappTemplate): WhatsappTemplateMessage {
  return {
    type: 'whatsapp_template',
    template: { name: template.name, languageCode: template.languageCode, components: [{ type: 'body', text: template.body }] },
  };
}

/** The template an element built by `whatsappTemplateElement` sends (its body: the body component's text). */
export function templateOf(element: WhatsappTemplateMessage): WhatsappTemplate {
  const body = element.template.components.find((component) => component.type === 'body')?.text ?? '';
  return { name: element.template.name, languageCode: element.template.languageCode, body };
}

/** Body of operations 7 to 9. */
export interface SendMessageRequest {
  body: [MessageElement];
  forceCancelSurvey?: boolean;
}

/** Channel types: on Viber the contact id travels Base64-encoded in some paths. */
export type ChannelType = 'generic' | 'viber';

/** The operations of the spec, as counted in reports (`apiCalls.byOperation`). */
export const API_OPERATIONS = [
  'searchContacts',
  'getContact',
  'updateContact',
  'addTags',
  'removeTags',
  'createContact',
  'sendMessage',
] as const;
export type ApiOperation = (typeof API_OPERATIONS)[number];

/**
 * Operations whose `{contact_id}` path segment is Base64-encoded on Viber channels: operations 3
 * and 5 by the spec, and send message by the platform notes. The one place this set lives.
 */
export const VIBER_ENCODED_ID_OPERATIONS: ReadonlySet<ApiOperation> = new Set<ApiOperation>([
  'updateContact',
  'removeTags',
  'sendMessage',
]);

export function encodeViberId(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64');
}
