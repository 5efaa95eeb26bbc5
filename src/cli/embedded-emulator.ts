/**
 * `--emulator`: runs the jobs against an emulator started in this process, with one channel per
 * connection the jobs use (its token and channel type) and the connection's own rate limits, so
 * the demo and a trial run behave as the platform would, without an account. An `api: v2`
 * connection's token is a workspace token of the emulator's v2 surface, with a channel of its own.
 */
import { readFileSync } from 'node:fs';
import type { Contact } from '../api/wire-types.js';
import type { Connection, Job } from '../config/job-types.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';
import { UsageError } from './usage-error.js';

export interface EmbeddedEmulator {
  jobs: Job[];
  emulator: RunningEmulator;
}

/** Contacts to load before the run: `{"<connection name>": [contact, ...]}` in a JSON file. */
export type EmulatorSeed = Record<string, Array<Partial<Contact> & { custom_fields: Record<string, string> }>>;

/** The seed file's contacts by connection name; a file that is not one is the user's to fix (exit 2). */
function readSeed(seedFile: string): EmulatorSeed {
  let text: string;
  try {
    text = readFileSync(seedFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--emulator-seed ${seedFile}: cannot be read (${code ?? String(error)}); name a JSON file of contacts keyed by connection name`);
  }
  let seed: unknown;
  try {
    seed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${seedFile}: not valid JSON (${(error as Error).message}); write {"<connection name>": [{"custom_fields": {...}, "tags": [...]}, ...]}`);
  }
  if (seed === null || typeof seed !== 'object' || Array.isArray(seed)) {
    throw new UsageError(`${seedFile}: must be an object keyed by connection name, {"<connection name>": [contact, ...]}, got ${Array.isArray(seed) ? 'a list' : JSON.stringify(seed)}`);
  }
  return seed as EmulatorSeed;
}

/** The channel an API v2 connection's workspace gets in the embedded emulator (its messages' channel). */
function v2ChannelToken(connection: Connection): string {
  return `embedded-channel-${connection.name}`;
}

export async function startEmbeddedEmulator(jobs: readonly Job[], seedFile: string | undefined): Promise<EmbeddedEmulator> {
  const connections = new Map<string, Connection>();
  for (const job of jobs) connections.set(job.connection.name, job.connection);
  const first = [...connections.values()][0];
  // A v1 connection is a channel of its token; a v2 connection is a workspace token, with a channel
  // of its own for its sends. All share one contact store when any speaks v2.
  const channelToken = (connection: Connection): string => (connection.api === 'v2' ? v2ChannelToken(connection) : connection.token);
  const workspaceTokens = [...new Set([...connections.values()].filter((connection) => connection.api === 'v2').map((connection) => connection.token))];
  const emulator = await startEmulator({
    channels: [...connections.values()].map((connection) => ({ token: channelToken(connection), type: connection.channelType, name: connection.name })),
    ...(workspaceTokens.length === 0 ? {} : { workspaceTokens }),
    ...(first === undefined ? {} : { rateLimits: { contacts: first.rateLimits.contacts, messages: first.rateLimits.messages } }),
  });
  if (seedFile !== undefined) {
    try {
      for (const [name, contacts] of Object.entries(readSeed(seedFile))) {
        const connection = connections.get(name);
        if (connection === undefined) {
          throw new UsageError(`${seedFile}: "${name}" is not a connection of the selected jobs (${[...connections.keys()].join(', ')}); key the seed by connection name`);
        }
        try {
          emulator.loadContacts(channelToken(connection), contacts);
        } catch (error) {
          // The emulator's own check names the contact and the field; the file and the key are ours.
          throw new UsageError(`${seedFile}: "${name}": ${error instanceof Error ? error.message.replace(/^emulator\.loadContacts: /, '') : String(error)}`);
        }
      }
    } catch (error) {
      await emulator.close();
      throw error;
    }
  }
  const redirected = jobs.map((job) => ({ ...job, connection: { ...job.connection, baseUrl: job.connection.api === 'v2' ? emulator.v2Url : emulator.url } }));
  return { jobs: redirected, emulator };
}
