/**
 * `--emulator`: runs the jobs against an emulator started in this process, with one channel per
 * connection the jobs use (its token and channel type) and the connection's own rate limits, so
 * the demo and a trial run behave as the platform would, without an account.
 */
import { readFileSync } from 'node:fs';
import type { Contact } from '../api/wire-types.js';
import type { Connection, Job } from '../config/job-types.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';

export interface EmbeddedEmulator {
  jobs: Job[];
  emulator: RunningEmulator;
}

/** Contacts to load before the run: `{"<connection name>": [contact, ...]}` in a JSON file. */
export type EmulatorSeed = Record<string, Array<Partial<Contact> & { custom_fields: Record<string, string> }>>;

export async function startEmbeddedEmulator(jobs: readonly Job[], seedFile: string | undefined): Promise<EmbeddedEmulator> {
  const connections = new Map<string, Connection>();
  for (const job of jobs) connections.set(job.connection.name, job.connection);
  const first = [...connections.values()][0];
  const emulator = await startEmulator({
    channels: [...connections.values()].map((connection) => ({ token: connection.token, type: connection.channelType, name: connection.name })),
    ...(first === undefined ? {} : { rateLimits: { contacts: first.rateLimits.contacts, messages: first.rateLimits.messages } }),
  });
  if (seedFile !== undefined) {
    const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as EmulatorSeed;
    for (const [name, contacts] of Object.entries(seed)) {
      const connection = connections.get(name);
      if (connection === undefined) {
        await emulator.close();
        throw new Error(`${seedFile}: "${name}" is not a connection of the selected jobs (${[...connections.keys()].join(', ')}); key the seed by connection name`);
      }
      emulator.loadContacts(connection.token, contacts);
    }
  }
  const redirected = jobs.map((job) => ({ ...job, connection: { ...job.connection, baseUrl: emulator.url } }));
  return { jobs: redirected, emulator };
}
