/**
 * "A kill at any instant leaves the state consistent": a child process runs the real StateStore
 * (compiled from src/state) in a loop of creates and updates, and is SIGKILLed mid-loop. The file
 * must then open, pass SQLite's integrity check, hold every write the child reported as done, and
 * equal exactly the state after some prefix of the child's transactions (never half of one).
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateStore } from '../../src/state/state-store.js';
import { compileStateModule } from './compiled-state-module.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

const identity = { job: 'crash', keyField: 'customerid' };
/** Keys the child cycles through: round 0 creates them, later rounds update them. */
const KEYS = 200;
/** Iterations the child would do if never killed (a bound; it is killed long before). */
const MAX_ITERATIONS = 50_000;

// The child's loop. Iteration i touches key k(i % KEYS) in round floor(i / KEYS): round 0 marks a
// create pending, then confirms it; later rounds confirm an update of two fields and swap a tag.
// It prints i once recordConfirmed returned.
// Progress is written with writeSync: process.stdout on a pipe may queue writes in the child,
// and a SIGKILL would lose lines of writes that did happen.
const CHILD = `
import { writeSync } from 'node:fs';
import { StateStore } from './state/state-store.js';
const [path, keys, max] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const store = StateStore.open(path, ${JSON.stringify(identity)});
store.startRun({ job: 'crash', argv: 'child', full: false, surface: 'v1' });
writeSync(1, 'open\\n');
for (let i = 0; i < max; i++) {
  const key = 'k' + (i % keys);
  const round = Math.floor(i / keys);
  if (round === 0) {
    store.markCreatePending(key);
    store.recordConfirmed(key, { contactId: 'id-' + key, surface: 'v1', fields: { round: '0', f0: '0' }, tagsAdded: ['t0'], draftHash: 'h0' });
  } else {
    store.recordConfirmed(key, {
      contactId: 'id-' + key,
      surface: 'v1',
      fields: { round: String(round), ['f' + (round % 3)]: String(round) },
      tagsAdded: ['t' + round],
      tagsRemoved: ['t' + (round - 1)],
      draftHash: 'h' + round,
    });
  }
  writeSync(1, i + '\\n');
}
store.close();
writeSync(1, 'done\\n');
`;

interface Snapshot {
  contacts: { key: string; contactId: string; fields: Record<string, string>; tags: string[]; draftHash: string | null }[];
  pending: string[];
}

/**
 * The state after each transaction of the child, computed independently of the store: element t
 * is the state after t transactions, up to the end of iteration `lastIteration`.
 */
function expectedSnapshots(lastIteration: number): Snapshot[] {
  const contacts = new Map<string, Snapshot['contacts'][number]>();
  const pending = new Set<string>();
  const snapshot = (): Snapshot => ({
    contacts: [...contacts.values()].map((c) => ({ ...c, fields: { ...c.fields }, tags: [...c.tags] })).sort((a, b) => (a.key < b.key ? -1 : 1)),
    pending: [...pending].sort(),
  });
  const snapshots = [snapshot()];
  for (let i = 0; i <= lastIteration; i++) {
    const key = `k${i % KEYS}`;
    const round = Math.floor(i / KEYS);
    if (round === 0) {
      pending.add(key);
      snapshots.push(snapshot());
      contacts.set(key, { key, contactId: `id-${key}`, fields: { round: '0', f0: '0' }, tags: ['t0'], draftHash: 'h0' });
      pending.delete(key);
    } else {
      const known = contacts.get(key)!;
      known.fields = { ...known.fields, round: String(round), [`f${round % 3}`]: String(round) };
      known.tags = [`t${round}`];
      known.draftHash = `h${round}`;
    }
    snapshots.push(snapshot());
  }
  return snapshots;
}

function actualSnapshot(store: StateStore): Snapshot {
  return {
    contacts: store.listKeys(1_000_000).map(({ key, contact, draftHash }) => ({
      key,
      contactId: contact.id,
      fields: { ...contact.custom_fields },
      tags: [...contact.tags],
      draftHash,
    })),
    pending: store.pendingCreates(),
  };
}

interface KilledChild {
  /** Last iteration the child reported done; -1 if none. */
  lastDone: number;
  opened: boolean;
  signal: NodeJS.Signals | null;
}

/** Runs the child and SIGKILLs it once it reported `killAfter` iterations done (-1: on 'open'). */
function runAndKill(script: string, path: string, killAfter: number): Promise<KilledChild> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, path, String(KEYS), String(MAX_ITERATIONS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const state: KilledChild = { lastDone: -1, opened: false, signal: null };
    let pendingText = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pendingText + chunk.toString()).split('\n');
      pendingText = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'open') state.opened = true;
        else if (/^\d+$/.test(line)) state.lastDone = Number(line);
      }
      if (state.opened && state.lastDone >= killAfter) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(guard);
      // Lines written before the kill are still in the pipe and were read above.
      state.signal = signal;
      if (signal !== 'SIGKILL') reject(new Error(`child ended without being killed: ${stderr}`));
      else resolve(state);
    });
  });
}

let temp: StateTestDir;
beforeEach(() => {
  temp = makeStateTestDir();
});
afterEach(() => temp.remove());

describe('crash consistency', () => {
  test('a second store on a file still open in another connection sees every confirmed record', () => {
    const path = temp.statePath();
    const writer = StateStore.open(path, identity);
    for (let i = 0; i < 1000; i++) {
      writer.recordConfirmed(`k${i}`, { contactId: `id-${i}`, surface: 'v1', fields: { n: String(i) }, tagsAdded: [`t${i % 7}`], draftHash: `h${i}` });
    }
    writer.markCreatePending('k-pending');
    const reader = StateStore.open(path, identity);
    expect(reader.summary()).toMatchObject({ keys: 1000, pendingCreates: 1 });
    for (let i = 0; i < 1000; i++) {
      expect(reader.get(`k${i}`)).toMatchObject({ contact: { id: `id-${i}`, custom_fields: { n: String(i) }, tags: [`t${i % 7}`] }, draftHash: `h${i}` });
    }
    reader.close();
    writer.close();
  });

  test('a process killed at arbitrary points of a write loop leaves a file that holds a prefix of its transactions, every reported write included', async () => {
    const script = join(temp.dir, 'child.mjs');
    compileStateModule(temp.dir);
    writeFileSync(script, CHILD);
    // -1: right after open; then inside round 0 (creates), at its end, early and later updates.
    for (const [index, killAfter] of [-1, 0, 37, 150, 199, 200, 420, 777, 1333, 2500].entries()) {
      const path = temp.statePath(`run-${index}`);
      const killed = await runAndKill(script, path, killAfter);
      expect(killed.signal).toBe('SIGKILL');
      expect(killed.lastDone).toBeGreaterThanOrEqual(killAfter);

      const store = StateStore.open(path, identity);
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      raw.close();

      // The child may have committed part or all of the iteration after the last it reported.
      const snapshots = expectedSnapshots(killed.lastDone + 1);
      const candidates = snapshots.slice(expectedSnapshots(killed.lastDone).length - 1);
      const actual = actualSnapshot(store);
      expect(candidates).toContainEqual(actual);
      expect(store.lastRun()).toMatchObject({ finished: false, argv: 'child' });

      // The store goes on after the crash.
      store.recordConfirmed('k0', { contactId: 'id-k0', surface: 'v1', fields: { after: 'crash' }, draftHash: null });
      expect(store.get('k0')?.contact.custom_fields.after).toBe('crash');
      store.close();
    }
  });
});
