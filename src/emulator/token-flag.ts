/** `--token TOKEN[:viber]` of `contact-sync emulator`. */
import type { ChannelType } from '../api/wire-types.js';

const CHANNEL_TYPES: readonly ChannelType[] = ['generic', 'viber'];

/**
 * Splits `TOKEN` or `TOKEN:TYPE` (TYPE: generic or viber). Throws an Error naming the flag and
 * the fix; the token itself is never echoed.
 */
export function parseTokenFlag(flag: string): { token: string; type: ChannelType } {
  const colon = flag.lastIndexOf(':');
  const token = colon === -1 ? flag : flag.slice(0, colon);
  const type = colon === -1 ? 'generic' : flag.slice(colon + 1);
  if (!(CHANNEL_TYPES as readonly string[]).includes(type)) {
    throw new Error(`--token: "${type}" after the last ":" is not a channel type; write TOKEN or TOKEN:viber`);
  }
  if (token.trim() === '') throw new Error('--token: the token is empty; write TOKEN or TOKEN:viber');
  return { token, type: type as ChannelType };
}
