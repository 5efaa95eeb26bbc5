/** The bodies the platform answers with (spec sections 2 and 7, platform notes). */

export interface ErrorEnvelope {
  status: 'error';
  message: string;
  data: [];
}

export interface SuccessEnvelope {
  status: 'success' | 'Success';
  message: string;
  data: [];
}

export const INVALID_TOKEN_MESSAGE = 'The API token is invalid';
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests';
export const METHOD_NOT_ALLOWED_MESSAGE = '405 Method Not Allowed';
export const SERVER_ERROR_MESSAGE = 'Server Error';
export const NO_SUCH_CONTACT = 'no such contact';

export function errorEnvelope(message: string): ErrorEnvelope {
  return { status: 'error', message, data: [] };
}

export function successEnvelope(message: string): SuccessEnvelope {
  return { status: 'success', message, data: [] };
}

/** Send message answers with a capital S (platform notes). */
export function messageSentEnvelope(): SuccessEnvelope {
  return { status: 'Success', message: 'Message Sent', data: [] };
}

/**
 * A WhatsApp template sent: HTTP 201 with a lowercase status and an object as `data` (a reseller's
 * message-template page). What the object holds is not documented: the emulator names the template.
 */
export function templateSentEnvelope(template: { name: string; languageCode: string }): { status: 'success'; message: string; data: { name: string; languageCode: string } } {
  return { status: 'success', message: 'Message Sent', data: { name: template.name, languageCode: template.languageCode } };
}

/** An answer with another status than 200 (a template's 201). */
export class StatusAnswer {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
  ) {}
}

/** A request the platform refuses; becomes `{status: 'error', message, data: []}`. */
export class RefusedRequest extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'RefusedRequest';
  }
}

/** The platform's "general error" (spec section 7). */
export function forbidden(message: string): RefusedRequest {
  return new RefusedRequest(403, message);
}

export function noSuchContact(pathId: string): RefusedRequest {
  return forbidden(`${NO_SUCH_CONTACT}: there is no contact with id "${pathId}" in this channel`);
}
