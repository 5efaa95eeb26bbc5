/**
 * What a run locks, whatever path names the job: the same lock files for one job reached through
 * a symlinked folder or a copied jobs file, for two jobs on one state file, and apart for what two
 * runs do not share (another channel, key field, job or shard). The token is never in them.
 */
import { createHash } from 'node:crypto';
import { chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { channelLockTarget, lockTargets, realPathOf, userLockDir, type LockedJob, type LockTargetOptions } from '../../src/lock/lock-target.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'tok-3f9a1c77e2';

/** real/ with a state folder in it, link -> real, and a shared lock folder. */
function layout(): { real: string; link: string; lockDir: string } {
  const root = tempDir('lock-target-');
  const real = join(root, 'real');
  mkdirSync(join(real, '.contact-sync'), { recursive: true });
  writeFileSync(join(real, '.contact-sync', 'crm.db'), '');
  symlinkSync(real, join(root, 'link'));
  return { real, link: join(root, 'link'), lockDir: join(root, 'locks') };
}

function job(extra: Partial<LockedJob> = {}): LockedJob {
  return { name: 'crm', state: false, keyField: 'customerid', connection: { baseUrl: 'https://api.example.com', token: TOKEN }, ...extra };
}

type Side = { job: LockedJob; shard?: string };

describe('lock targets', () => {
  const { real, link, lockDir } = layout();
  const state = (folder: string, file = 'crm.db') => join(folder, '.contact-sync', file);
  const files = (side: Side) => {
    const options: LockTargetOptions = { lockDir, ...(side.shard === undefined ? {} : { shard: side.shard }) };
    return Object.fromEntries(lockTargets(side.job, options).map((target) => [target.kind, target.file]));
  };

  // Each row: two runs, and whether their channel lock and their state lock are one file.
  // `state: 'none'` when neither run has a state store.
  const table: Array<{ case: string; a: Side; b: Side; channel: 'same' | 'apart'; state: 'same' | 'apart' | 'none' }> = [
    { case: 'one job, its state through a symlinked folder', a: { job: job({ state: state(real) }) }, b: { job: job({ state: state(link) }) }, channel: 'same', state: 'same' },
    { case: 'one job, a state file not created yet, through a symlinked folder', a: { job: job({ state: state(real, 'new/crm.db') }) }, b: { job: job({ state: state(link, 'new/crm.db') }) }, channel: 'same', state: 'same' },
    { case: 'a copied jobs file naming the same state', a: { job: job({ state: state(real) }) }, b: { job: job({ state: state(real) }) }, channel: 'same', state: 'same' },
    { case: 'a copied jobs file, each copy its own state', a: { job: job({ state: state(real) }) }, b: { job: job({ state: state(real, 'copy.db') }) }, channel: 'same', state: 'apart' },
    { case: 'two job names on one state file', a: { job: job({ state: state(real) }) }, b: { job: job({ name: 'crm-b', state: state(link) }) }, channel: 'apart', state: 'same' },
    { case: 'a copied jobs file without state', a: { job: job() }, b: { job: job() }, channel: 'same', state: 'none' },
    { case: 'the base URL spelt another way', a: { job: job() }, b: { job: job({ connection: { baseUrl: 'https://API.example.com:443/', token: TOKEN } }) }, channel: 'same', state: 'none' },
    { case: 'another token (another channel)', a: { job: job() }, b: { job: job({ connection: { baseUrl: 'https://api.example.com', token: `${TOKEN}x` } }) }, channel: 'apart', state: 'none' },
    { case: 'another platform', a: { job: job() }, b: { job: job({ connection: { baseUrl: 'https://api.other.example', token: TOKEN } }) }, channel: 'apart', state: 'none' },
    { case: 'another key field', a: { job: job() }, b: { job: job({ keyField: 'email' }) }, channel: 'apart', state: 'none' },
    { case: 'another job on the channel (disjoint files sharing a budget)', a: { job: job() }, b: { job: job({ name: 'crm-b' }) }, channel: 'apart', state: 'none' },
    { case: 'two shards', a: { job: job({ state: state(real) }), shard: '1/2' }, b: { job: job({ state: state(link) }), shard: '2/2' }, channel: 'apart', state: 'apart' },
    { case: 'a shard and the whole job', a: { job: job({ state: state(real) }), shard: '1/2' }, b: { job: job({ state: state(real) }) }, channel: 'apart', state: 'apart' },
    { case: 'one shard twice, through a symlink', a: { job: job({ state: state(real) }), shard: '1/2' }, b: { job: job({ state: state(link) }), shard: '1/2' }, channel: 'same', state: 'same' },
  ];

  it.each(table)('$case: channel $channel, state $state', ({ a, b, channel, state: stateLock }) => {
    const [one, two] = [files(a), files(b)];
    expect(one.channel === two.channel ? 'same' : 'apart').toBe(channel);
    if (stateLock === 'none') expect([one.state, two.state]).toEqual([undefined, undefined]);
    else expect(one.state === two.state ? 'same' : 'apart').toBe(stateLock);
  });

  it('names the state by its real path and the channel without its token, in words and in files', () => {
    const targets = lockTargets(job({ state: state(link, 'new/crm.db'), connection: { baseUrl: 'https://user:Pa55-in-url@api.example.com/', token: TOKEN } }), { lockDir });
    expect(targets.map(({ kind, what }) => ({ kind, what }))).toEqual([
      { kind: 'channel', what: 'job "crm" (key field customerid) on the channel at https://api.example.com' },
      { kind: 'state', what: `the state store ${realPathOf(real)}/.contact-sync/new/crm.db` },
    ]);
    expect(targets[1]!.file).toBe(`${realPathOf(real)}/.contact-sync/new/crm.db.lock`);
    expect(targets[0]!.file).toMatch(new RegExp(`^${lockDir}/crm\\.[0-9a-f]{16}\\.lock$`));
    const tokenDigest = createHash('sha256').update(TOKEN).digest('hex');
    for (const text of targets.flatMap(({ what, file }) => [what, file])) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(tokenDigest.slice(0, 16));
      expect(text).not.toContain('Pa55-in-url');
    }
  });

  it('a job of mode message without a key names no key field', () => {
    expect(channelLockTarget(job({ keyField: '' }), undefined, lockDir).what).toBe('job "crm" on the channel at https://api.example.com');
  });

  it("the channel locks' folder: XDG_STATE_HOME, else HOME's .local/state, else a folder of this user's in TMPDIR", () => {
    const home = tempDir('lock-home-');
    expect(userLockDir({ XDG_STATE_HOME: join(home, 'xdg'), HOME: home })).toBe(join(home, 'xdg', 'contact-sync', 'locks'));
    expect(userLockDir({ HOME: home })).toBe(join(home, '.local', 'state', 'contact-sync', 'locks'));
    // A home that cannot hold a folder (a file stands where it would go).
    writeFileSync(join(home, 'file'), '');
    expect(userLockDir({ HOME: join(home, 'file'), TMPDIR: home })).toMatch(new RegExp(`^${home}/contact-sync-\\d+/locks$`));
  });

  // Only root can make a folder another user's.
  (process.getuid?.() === 0 ? it : it.skip)('refuses a fallback folder in TMPDIR that another user made first, naming it and the fix', () => {
    const tmp = tempDir('lock-tmp-');
    const theirs = join(tmp, `contact-sync-${process.getuid!()}`);
    mkdirSync(theirs);
    chownSync(theirs, 65534, 65534);
    writeFileSync(join(tmp, 'file'), '');
    expect(() => userLockDir({ HOME: join(tmp, 'file'), TMPDIR: tmp })).toThrow(
      `the folder of the job locks, ${theirs}, belongs to another user; set XDG_STATE_HOME to a folder this user owns; nothing was done`,
    );
  });
});
