/**
 * The `{contact_id}` path segment as a channel sends it: Base64 of the id on Viber channels for
 * the operations of `VIBER_ENCODED_ID_OPERATIONS`, the plain id everywhere else.
 */
import { VIBER_ENCODED_ID_OPERATIONS, encodeViberId } from '../api/wire-types.js';
import type { ApiOperation } from '../api/wire-types.js';
import type { Channel } from './channel.js';
import { noSuchContact } from './envelopes.js';

/** The id of an existing contact named by `segment`; a 403 "no such contact" otherwise. */
export function contactIdFromPath(channel: Channel, operation: ApiOperation, segment: string): string {
  const id =
    channel.type === 'viber' && VIBER_ENCODED_ID_OPERATIONS.has(operation) ? decodeViberId(segment) : segment;
  if (id === undefined || !channel.contacts.has(id)) throw noSuchContact(segment);
  return id;
}

/** Strict: only what `encodeViberId` produces decodes, so a plain id is not mistaken for one. */
function decodeViberId(segment: string): string | undefined {
  const decoded = Buffer.from(segment, 'base64').toString('utf8');
  return decoded !== '' && encodeViberId(decoded) === segment ? decoded : undefined;
}
