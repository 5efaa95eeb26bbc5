/** v2's bodies arrive as raw text (server.ts), so that a bad one is refused as v2's 400 after authentication. */
import { badRequest } from './v2-errors.js';

export function parseV2Body(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw badRequest(`the request body is not valid JSON (${(error as Error).message}); send JSON with content-type application/json`);
  }
}
