/**
 * A small disk for the full-disk tests: a tmpfs of a few KiB, mounted when the tests run as root
 * on a machine that allows it. Elsewhere `smallDisk()` returns undefined and the tests that need
 * one are skipped, and say so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  unmount(): void;
}

export function smallDisk(sizeKiB: number): SmallDisk | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0777`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a small disk can be had here, checked once (mounts and unmounts one). */
export const CAN_MOUNT_SMALL_DISK: boolean = (() => {
  const probe = smallDisk(8);
  probe?.unmount();
  return probe !== undefined;
})();

export const SMALL_DISK_SKIP_REASON = 'needs root and tmpfs mounts to simulate a full disk';
