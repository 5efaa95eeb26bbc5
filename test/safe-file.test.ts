/**
 * Files written where another account may have planted a link (issue 33): the temporary name is
 * unguessable and opened exclusively, nothing is written through a link, the target is replaced
 * (never written into), and its mode is the one intended whatever it had.
 */
import { chmodSync, closeSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createReplacingFile, NotRegularFileError, OWNER_ONLY, READABLE_BY_ALL, writeFileAtomically } from '../src/safe-file.js';
import { tempDir } from './helpers/temp-dir.js';

/** The "random" bytes a test knows in advance, so it can plant a link at the temporary name. */
const known = (): Buffer => Buffer.from('0123456789abcdef', 'hex');
const KNOWN_SUFFIX = '0123456789abcdef';

/** What `act` threw (it must throw). */
function thrown(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
}

function victim(dir: string): string {
  const path = join(dir, 'victim');
  writeFileSync(path, 'do not touch\n');
  return path;
}

describe('writeFileAtomically', () => {
  it('writes the file whole with the mode asked, replacing a file of another mode, and leaves no temporary file', () => {
    const dir = tempDir();
    const path = join(dir, 'summary.json');
    writeFileSync(path, 'old', { mode: 0o666 });
    chmodSync(path, 0o666);
    const inodeBefore = statSync(path).ino;

    writeFileAtomically(path, '{"rows":1}\n', OWNER_ONLY);

    expect(readFileSync(path, 'utf8')).toBe('{"rows":1}\n');
    expect(statSync(path).mode & 0o777).toBe(OWNER_ONLY);
    expect(statSync(path).ino).not.toBe(inodeBefore);
    expect(readdirSync(dir)).toEqual(['summary.json']);
  });

  it('gives the metrics textfile 0644 even under a umask that would narrow it', () => {
    const path = join(tempDir(), 'contact_sync.prom');
    const before = process.umask(0o077);
    try {
      writeFileAtomically(path, 'contact_sync_last_exit_code{sync_job="crm"} 0\n', READABLE_BY_ALL);
    } finally {
      process.umask(before);
    }
    expect(statSync(path).mode & 0o777).toBe(READABLE_BY_ALL);
  });

  it('writes nothing through a link planted at the temporary name, and leaves the link', () => {
    const dir = tempDir();
    const target = victim(dir);
    const planted = join(dir, `.summary.json.${KNOWN_SUFFIX}.tmp`);
    symlinkSync(target, planted);

    expect(thrown(() => writeFileAtomically(join(dir, 'summary.json'), 'secret values\n', OWNER_ONLY, known))).toMatchObject({ code: 'EEXIST' });

    expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([`.summary.json.${KNOWN_SUFFIX}.tmp`, 'victim']);
  });

  it('writes nothing through the names earlier versions used (`<file>.tmp`, `.<file>.<pid>.tmp`)', () => {
    const dir = tempDir();
    const target = victim(dir);
    symlinkSync(target, join(dir, 'summary.json.tmp'));
    symlinkSync(target, join(dir, `.contact_sync.prom.${process.pid}.tmp`));

    writeFileAtomically(join(dir, 'summary.json'), '{}\n', OWNER_ONLY);
    writeFileAtomically(join(dir, 'contact_sync.prom'), 'contact_sync_last_exit_code{sync_job="crm"} 0\n', READABLE_BY_ALL);

    expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('{}\n');
  });

  it('refuses a target that is a symbolic link, a folder or a named pipe, writing nothing', () => {
    const dir = tempDir();
    const target = victim(dir);
    symlinkSync(target, join(dir, 'linked.json'));
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);

    expect(() => writeFileAtomically(join(dir, 'linked.json'), 'x', OWNER_ONLY)).toThrow(new NotRegularFileError(join(dir, 'linked.json'), 'a symbolic link'));
    expect(() => writeFileAtomically(dir, 'x', OWNER_ONLY)).toThrow(`${dir} is a folder, not a regular file`);
    expect(() => writeFileAtomically(join(dir, 'pipe.json'), 'x', OWNER_ONLY)).toThrow(`${join(dir, 'pipe.json')} is a named pipe, not a regular file`);
    expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
    expect(readdirSync(dir).sort()).toEqual(['linked.json', 'pipe.json', 'victim']);
  });
});

describe('createReplacingFile', () => {
  it('replaces a results.csv left 0644 by an earlier run with a new owner-only file', () => {
    const dir = tempDir();
    const path = join(dir, 'import.results.csv');
    writeFileSync(path, 'an earlier run\n');
    chmodSync(path, 0o644);

    const fd = createReplacingFile(path, OWNER_ONLY);
    writeSync(fd, 'line,key\n');
    closeSync(fd);

    expect(readFileSync(path, 'utf8')).toBe('line,key\n');
    expect(statSync(path).mode & 0o777).toBe(OWNER_ONLY);
    expect(readdirSync(dir)).toEqual(['import.results.csv']);
  });

  it('writes nothing through a link planted at the temporary name or at the file itself', () => {
    const dir = tempDir();
    const target = victim(dir);
    symlinkSync(target, join(dir, `.import.results.csv.${KNOWN_SUFFIX}.tmp`));
    symlinkSync(target, join(dir, 'linked.csv'));

    expect(thrown(() => createReplacingFile(join(dir, 'import.results.csv'), OWNER_ONLY, known))).toMatchObject({ code: 'EEXIST' });
    expect(thrown(() => createReplacingFile(join(dir, 'linked.csv'), OWNER_ONLY))).toMatchObject({ code: 'ENOTREGULAR', kind: 'a symbolic link' });

    expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
  });

  it('refuses a device, so `--problems /dev/null` run as root never renames over it', () => {
    expect(() => createReplacingFile('/dev/null', OWNER_ONLY)).toThrow('/dev/null is a device, not a regular file');
    // Still the device (a rename would have made it a regular file).
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});
