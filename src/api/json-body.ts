/**
 * What both surfaces read of any answer body: the body as JSON (a body that is not JSON is a
 * `MalformedResponseError`), and the platform's `message` of an error body.
 */
import { MalformedResponseError, type ApiErrorContext } from './errors.js';

/** True for a JSON object (not null, not a list). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a body as JSON; a body that is not JSON is malformed. */
export function parseJsonBody(body: string, where: ApiErrorContext): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    const start = body.slice(0, 60).replace(/\s+/g, ' ');
    throw new MalformedResponseError({ ...where, problem: `the body is not JSON (it starts with ${JSON.stringify(start)})` });
  }
}

/** The platform's `message` of an error body, a list joined with "; "; undefined when absent. */
export function serverMessageOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const { message } = value;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) {
    const parts = message.filter((part): part is string => typeof part === 'string');
    return parts.length > 0 ? parts.join('; ') : undefined;
  }
  return undefined;
}
