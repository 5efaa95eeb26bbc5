/**
 * v2 names a contact in the path by an identifier (the SDK's `ContactIdentifier`, src/types/common.ts):
 * `id:<number>`, `email:<address>` or `phone:<+E.164>`.
 */
import { badRequest } from './v2-errors.js';

export type ContactIdentifier =
  | { kind: 'id'; id: number; text: string }
  | { kind: 'email'; email: string; text: string }
  | { kind: 'phone'; phone: string; text: string };

/** Unverified: the platform's own checks are not published; these are E.164 and "something@something". */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
export const E164_PATTERN = /^\+[1-9]\d{5,14}$/;

export function parseIdentifier(segment: string): ContactIdentifier {
  const colon = segment.indexOf(':');
  const kind = colon === -1 ? '' : segment.slice(0, colon);
  const value = segment.slice(colon + 1);
  if (kind === 'id' && /^[1-9]\d*$/.test(value) && Number.isSafeInteger(Number(value))) {
    return { kind, id: Number(value), text: segment };
  }
  if (kind === 'email' && EMAIL_PATTERN.test(value)) return { kind, email: value, text: segment };
  if (kind === 'phone' && E164_PATTERN.test(value)) return { kind, phone: value, text: segment };
  throw badRequest(
    `the contact identifier "${segment}" is not id:<number>, email:<address> or phone:<+E.164> (a phone number with its "+" and country code)`,
  );
}
