/** A small fetch wrapper for the emulator tests: one call, its status, headers and JSON body. */
import type { RunningEmulator } from '../../src/emulator/index.js';

export const TOKEN = 'demo-token';

export interface Answer {
  status: number;
  headers: Headers;
  // Tests read envelopes loosely and assert their exact shape with toEqual.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  /** Channel token; `null` sends no Authorization header. @default TOKEN */
  token?: string | null;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with `content-type: application/json`. */
  raw?: string;
  headers?: Record<string, string>;
}

/** A call to the channel API: `path` starts with `/v1/`. */
export async function api(emulator: RunningEmulator, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const token = options.token === undefined ? TOKEN : options.token;
  return send(`${emulator.url}${path}`, method, {
    ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    ...options.headers,
  }, options);
}

/** A call to the admin API: `path` starts with `/` under `/__admin`. */
export async function admin(emulator: RunningEmulator, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  return send(`${emulator.origin}/__admin${path}`, method, { 'x-admin-key': emulator.adminKey, ...options.headers }, options);
}

async function send(url: string, method: string, headers: Record<string, string>, options: CallOptions): Promise<Answer> {
  const body = options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** Creates a contact through the API and returns its id. */
export async function createContact(emulator: RunningEmulator, fields: Record<string, string>, token = TOKEN): Promise<string> {
  const answer = await api(emulator, 'POST', '/v1/contact', {
    token,
    json: { custom_fields: Object.entries(fields).map(([name, value]) => ({ name, value })) },
  });
  if (answer.status !== 200) throw new Error(`create failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.data.id as string;
}
