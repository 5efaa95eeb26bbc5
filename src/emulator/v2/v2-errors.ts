/**
 * v2's answers to a refused request: the HTTP status and a JSON body `{code, message}`
 * (spec/api-v2-notes.md; the SDK's `APIError` in src/types/common.ts). The emulator's `code` is
 * the HTTP status (unverified: the platform's own codes are not published).
 */

export interface V2ErrorBody {
  code: number;
  message: string;
}

export const V2_INVALID_TOKEN_MESSAGE = 'Unauthorized: the access token is invalid';
export const V2_TOO_MANY_REQUESTS_MESSAGE = 'Too many requests';
export const V2_SERVER_ERROR_MESSAGE = 'Internal server error';
export const V2_METHOD_NOT_ALLOWED_MESSAGE = 'Method not allowed';

export function v2Error(statusCode: number, message: string): V2ErrorBody {
  return { code: statusCode, message };
}

/** A request v2 refuses; becomes `{code, message}` with its status. */
export class V2Refusal extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'V2Refusal';
  }
}

/** A body, identifier or query that breaks a rule: the SDK's "validation error". */
export function badRequest(message: string): V2Refusal {
  return new V2Refusal(400, message);
}

export function contactNotFound(identifier: string): V2Refusal {
  return new V2Refusal(404, `Contact not found: no contact of this workspace has the identifier "${identifier}"`);
}
