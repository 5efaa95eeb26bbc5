/** Calls to the emulator's v2 surface for the v2 tests: one call, its status, headers and JSON body. */
import type { EmulatorOptions, RunningEmulator } from '../../../src/emulator/index.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { Answer } from '../emulator-http.js';

export const WORKSPACE_TOKEN = 'workspace-token';
export const CHANNEL_TOKEN = 'demo-token';

export interface V2CallOptions {
  /** Workspace token; `null` sends no Authorization header. @default WORKSPACE_TOKEN */
  token?: string | null;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with `content-type: application/json`. */
  raw?: string;
}

/** A call to v2: `path` starts with `/contact`. */
export async function v2(emulator: RunningEmulator, method: string, path: string, options: V2CallOptions = {}): Promise<Answer> {
  const token = options.token === undefined ? WORKSPACE_TOKEN : options.token;
  const body = options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${emulator.v2Url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** An emulator with one channel and a workspace, no limits unless given, on a clock the test moves. */
export function startV2Emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ workspaceTokens: [WORKSPACE_TOKEN], rateLimits: false, ...options });
}

/** Creates a contact through v2's create_or_update and returns its numeric id. */
export async function createV2Contact(emulator: RunningEmulator, identifier: string, fields: Record<string, unknown> = {}): Promise<number> {
  const answer = await v2(emulator, 'POST', `/contact/create_or_update/${identifier}`, { json: { firstName: 'Ann', ...fields } });
  if (answer.status !== 200) throw new Error(`create_or_update failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.contactId as number;
}
