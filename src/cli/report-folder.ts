/**
 * The folder a run session writes its reports to: `--report-dir`, or a new
 * `reports/<timestamp>/`, created owner-only before any call (a folder that cannot take the
 * reports is an input error, exit 2), and removed again when the command stopped before any report.
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from './usage-error.js';

export interface ReportFolder {
  readonly dir: string;
  /** Removes the folders this command created when no report landed in them. */
  removeIfUnused(): void;
}

export function openReportFolder(cwd: string, given: string | undefined, now: Date): ReportFolder {
  const dir = resolve(cwd, given ?? join('reports', timestampFolder(now)));
  const created = createReportDir(dir, given !== undefined);
  return {
    dir,
    removeIfUnused() {
      if (created !== undefined && existsSync(dir) && readdirSync(dir).length === 0) rmSync(created, { recursive: true, force: true });
    },
  };
}

/** Creates the report folder (owner only), or says which folder and how to choose another; returns the first folder it created. */
function createReportDir(dir: string, given: boolean): string | undefined {
  try {
    const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return created;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const fix = given ? 'choose a folder this user can write with --report-dir' : 'run from a folder this user can write, or choose one with --report-dir';
    throw new UsageError(`the report folder ${dir} cannot be created or written (${code}); ${fix}; nothing was done`);
  }
}

function timestampFolder(now: Date): string {
  return now.toISOString().replace(/[:]/g, '-').replace(/\..*$/, '');
}
