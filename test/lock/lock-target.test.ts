/**
 * What a run locks, whatever path, spelling or environment names the job: the same lock files for
 * one job reached through a symlinked folder, a copied jobs file, another spelling of its base URL
 * or a hard link of its state file, for two jobs on one state file, and apart for what two runs do
 * not share (another channel, surface, key field or job). The token is never in them.
 */
import { createHash } from 'node:crypto';
import { chownSync, linkSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { channelLockTarget, hostLockDir, lockTargets, platformIdentity, realPathOf, type LockedJob, type LockTargetOptions } from '../../src/lock/lock-target.js';
import { lockedJob } from '../../src/cli/job-locks.js';
import { makeJob } from '../helpers/job-factory.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'tok-3f9a1c77e2';

/** real/ with a state folder in it, link -> real, and a shared lock folder. */
function layout(): { real: string; link: string; lockDir: string } {
  const root = tempDir('lock-target-');
  const real = join(root, 'real');
  mkdirSync(join(real, '.contact-sync'), { recursive: true });
  writeFileSync(join(real, '.contact-sync', 'crm.db'), '');
  mkdirSync(join(real, 'elsewhere'));
  linkSync(join(real, '.contact-sync', 'crm.db'), join(real, 'elsewhere', 'hard-link.db'));
  symlinkSync(real, join(root, 'link'));
  return { real, link: join(root, 'link'), lockDir: join(root, 'locks') };
}

function job(extra: Partial<LockedJob> = {}): LockedJob {
  return { name: 'crm', state: false, keyField: 'customerid', connection: { baseUrl: 'https://api.example.com', token: TOKEN }, ...extra };
}

type Side = { job: LockedJob };

describe('lock targets', () => {
  const { real, link, lockDir } = layout();
  const state = (folder: string, file = 'crm.db') => join(folder, '.contact-sync', file);
  const files = (side: Side) => {
    const options: LockTargetOptions = { lockDir };
    // The state's locks: beside its real file, and by its inode once it exists.
    const targets = lockTargets(side.job, options);
    const state = targets.filter((target) => target.kind === 'state').map((target) => target.file);
    return { channel: targets.find((target) => target.kind === 'channel')?.file, state };
  };

  // Each row: two runs, and whether their channel lock and any of their state locks are one file.
  // `state: 'none'` when neither run has a state store.
  const url = (baseUrl: string, token = TOKEN, api?: 'v1' | 'v2') => ({ connection: { baseUrl, token, ...(api === undefined ? {} : { api }) } });
  const table: Array<{ case: string; a: Side; b: Side; channel: 'same' | 'apart'; state: 'same' | 'apart' | 'none' }> = [
    { case: 'one job, its state through a symlinked folder', a: { job: job({ state: state(real) }) }, b: { job: job({ state: state(link) }) }, channel: 'same', state: 'same' },
    { case: 'one job, a state file not created yet, through a symlinked folder', a: { job: job({ state: state(real, 'new/crm.db') }) }, b: { job: job({ state: state(link, 'new/crm.db') }) }, channel: 'same', state: 'same' },
    { case: 'one job, its state through a hard link in another folder', a: { job: job({ state: state(real) }) }, b: { job: job({ state: join(real, 'elsewhere', 'hard-link.db') }) }, channel: 'same', state: 'same' },
    { case: 'a copied jobs file naming the same state', a: { job: job({ state: state(real) }) }, b: { job: job({ state: state(real) }) }, channel: 'same', state: 'same' },
    { case: 'a copied jobs file, each copy its own state', a: { job: job({ state: state(real) }) }, b: { job: job({ state: state(real, 'copy.db') }) }, channel: 'same', state: 'apart' },
    { case: 'two job names on one state file', a: { job: job({ state: state(real) }) }, b: { job: job({ name: 'crm-b', state: state(link) }) }, channel: 'apart', state: 'same' },
    { case: 'a copied jobs file without state', a: { job: job() }, b: { job: job() }, channel: 'same', state: 'none' },
    { case: 'the base URL spelt another way', a: { job: job() }, b: { job: job(url('https://API.example.com:443/')) }, channel: 'same', state: 'none' },
    { case: 'localhost and 127.0.0.1', a: { job: job(url('http://127.0.0.1:8080')) }, b: { job: job(url('http://localhost:8080')) }, channel: 'same', state: 'none' },
    { case: 'a path spelt with an escape', a: { job: job(url('http://127.0.0.1:8080/api')) }, b: { job: job(url('http://127.0.0.1:8080/%61pi')) }, channel: 'same', state: 'none' },
    { case: 'another token (another channel)', a: { job: job() }, b: { job: job(url('https://api.example.com', `${TOKEN}x`)) }, channel: 'apart', state: 'none' },
    { case: 'the same token on the other surface', a: { job: job(url('https://api.example.com', TOKEN, 'v1')) }, b: { job: job(url('https://api.example.com', TOKEN, 'v2')) }, channel: 'apart', state: 'none' },
    { case: 'another key field', a: { job: job() }, b: { job: job({ keyField: 'email' }) }, channel: 'apart', state: 'none' },
    { case: 'another job on the channel (disjoint files sharing a budget)', a: { job: job() }, b: { job: job({ name: 'crm-b' }) }, channel: 'apart', state: 'none' },
  ];

  it.each(table)('$case: channel $channel, state $state', ({ a, b, channel, state: stateLock }) => {
    const [one, two] = [files(a), files(b)];
    expect(one.channel === two.channel ? 'same' : 'apart').toBe(channel);
    if (stateLock === 'none') expect([one.state, two.state]).toEqual([[], []]);
    else expect(one.state.some((file) => two.state.includes(file)) ? 'same' : 'apart').toBe(stateLock);
  });

  it('names the state by its real path and the channel without its token, in words and in files', () => {
    const targets = lockTargets(job({ state: state(link, 'new/crm.db'), connection: { baseUrl: 'https://user:Pa55-in-url@api.example.com/', token: TOKEN } }), { lockDir });
    // The state file does not exist yet: no lock by its inode.
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
    expect(channelLockTarget(job({ keyField: '' }), lockDir).what).toBe('job "crm" on the channel at https://api.example.com');
  });

  it("the host's lock folder: <host temp>/contact-sync-<uid>/locks whatever HOME or XDG_STATE_HOME say, or CONTACT_SYNC_LOCK_DIR", () => {
    const home = tempDir('lock-home-');
    const hostTemp = tempDir('lock-var-tmp-');
    const host = join(hostTemp, `contact-sync-${process.getuid?.() ?? 'user'}`, 'locks');
    expect(hostLockDir({ XDG_STATE_HOME: join(home, 'xdg'), HOME: home }, hostTemp)).toBe(host);
    expect(hostLockDir({ HOME: join(home, 'other') }, hostTemp)).toBe(host);
    expect(hostLockDir({}, hostTemp)).toBe(host);
    expect(statSync(host).mode & 0o777).toBe(0o700);
    expect(hostLockDir({ CONTACT_SYNC_LOCK_DIR: join(home, 'locks'), XDG_STATE_HOME: join(home, 'xdg') }, hostTemp)).toBe(join(home, 'locks'));
  });

  it('a CONTACT_SYNC_LOCK_DIR that cannot be created is refused, naming it and the fix', () => {
    const home = tempDir('lock-home-');
    writeFileSync(join(home, 'file'), '');
    expect(() => hostLockDir({ CONTACT_SYNC_LOCK_DIR: join(home, 'file', 'locks') })).toThrow(
      `the folder of the job locks, ${join(home, 'file', 'locks')} (CONTACT_SYNC_LOCK_DIR), cannot be created (ENOTDIR); set CONTACT_SYNC_LOCK_DIR to a folder this user can write; nothing was done`,
    );
  });

  // Only root can make a folder another user's.
  (process.getuid?.() === 0 ? it : it.skip)('refuses a host folder another user made first, naming it and the fix', () => {
    const hostTemp = tempDir('lock-var-tmp-');
    const theirs = join(hostTemp, `contact-sync-${process.getuid!()}`);
    mkdirSync(theirs);
    chownSync(theirs, 65534, 65534);
    expect(() => hostLockDir({}, hostTemp)).toThrow(
      `the folder of the job locks, ${theirs}, belongs to another user; remove it, or set CONTACT_SYNC_LOCK_DIR to a folder this user owns, the same for every run on this host; nothing was done`,
    );
  });
});

describe('the platform identity a state in PostgreSQL is keyed on', () => {
  it('the surface and a digest of the token: one for one token and surface, apart for another; never the token or its plain digest', () => {
    const v1 = platformIdentity({ token: TOKEN });
    const table = [
      { case: 'the same token, v1 by default and named', a: v1, b: platformIdentity({ token: TOKEN, api: 'v1' }), same: true },
      { case: 'another token (a rotated one too)', a: v1, b: platformIdentity({ token: `${TOKEN}x` }), same: false },
      { case: 'the same token on v2', a: v1, b: platformIdentity({ token: TOKEN, api: 'v2' }), same: false },
    ];
    expect(table.map((row) => ({ case: row.case, same: row.a === row.b }))).toEqual(table.map((row) => ({ case: row.case, same: row.same })));
    expect(v1).toMatch(/^v1:[0-9a-f]{32}$/);
    expect(platformIdentity({ token: TOKEN, api: 'v2' })).toMatch(/^v2:[0-9a-f]{32}$/);
    const plainDigest = createHash('sha256').update(TOKEN).digest('hex');
    expect(v1).not.toContain(TOKEN);
    expect(v1).not.toContain(plainDigest.slice(0, 16));
  });
});

describe('the lock targets of a job by where its state lives', () => {
  it('a file: the channel and the state file; PostgreSQL: the channel only (the database holds the run across hosts); none: the channel', () => {
    const lockDir = tempDir('lock-kinds-');
    const kinds = (state: LockedJob['state'] | { kind: 'postgres'; url: string; schema: string }) =>
      lockTargets(lockedJob(makeJob({ state })), { lockDir }).map((target) => target.kind);
    expect(kinds(join(lockDir, 'crm.db'))).toEqual(['channel', 'state']);
    expect(kinds({ kind: 'postgres', url: 'postgres://sync:pw@db.internal/crm', schema: 'contact_sync' })).toEqual(['channel']);
    expect(kinds(false)).toEqual(['channel']);
  });
});
