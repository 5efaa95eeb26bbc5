/**
 * `--metrics-file` / `metrics.textfile`: the figures of each job, for node_exporter's textfile
 * collector (docs/operations.md, "Watching unattended runs").
 *
 * One file may hold several jobs (one jobs file's, or several cron entries'): a job's end replaces
 * that job's samples and keeps the others'. A job that did not succeed keeps the time of its last
 * success from the file, so "no successful run for 26 hours" can be alerted on. The file is read,
 * merged and replaced under a lock (two jobs ending together do not lose each other's samples),
 * and replaced through a rename in its own folder, so the collector never reads half a file.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { notRegularFileKind, NotRegularFileError, READABLE_BY_ALL, writeFileAtomically } from '../safe-file.js';
import { openSqliteDatabase } from '../state/sqlite-database.js';
import { parseMetrics, renderMetrics } from './metrics-text.js';
import { runMetrics, type EndedJob } from './run-metrics.js';

/** How long a job waits for another process writing the same file (it writes for milliseconds). */
const LOCK_WAIT_MS = 10_000;

/**
 * Replaces the ended job's samples in the textfile at `path`, keeping every other job's. Its
 * folder must exist (checked before the run: `checkMetricsTextfile`): a mistyped folder created
 * here would be one the collector never reads.
 */
export async function updateMetricsTextfile(path: string, ended: EndedJob): Promise<void> {
  const release = lockFile(path);
  try {
    const before = parseMetrics(readIfThere(path));
    const previousSuccess = before.find((sample) => sample.name === 'contact_sync_last_success_timestamp_seconds' && sample.labels.sync_job === ended.syncJob)?.value;
    const others = before.filter((sample) => sample.labels.sync_job !== ended.syncJob);
    const text = await renderMetrics([...others, ...runMetrics(ended, previousSuccess)]);
    // A hidden, unguessable temporary name in the same folder (node_exporter reads only *.prom, the
    // rename is atomic), opened so that nothing is written through a link planted in a shared
    // folder (safe-file.ts). The collector runs as another user: the file is readable by all.
    writeFileAtomically(path, text, READABLE_BY_ALL);
  } finally {
    release();
  }
}

function readIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * An exclusive SQLite transaction on `.<file>.lock` beside the file, as the job lock is taken
 * (src/lock/job-lock.ts): the operating system drops it with the process, however it ends.
 */
function lockFile(path: string): () => void {
  const lock = join(dirname(path), `.${basename(path)}.lock`);
  // SQLite follows a link: one planted at the lock's name in a shared folder is refused, not written through.
  const kind = notRegularFileKind(lock);
  if (kind !== undefined) throw new NotRegularFileError(lock, kind);
  const db = openSqliteDatabase(lock, { timeout: LOCK_WAIT_MS });
  try {
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    throw error;
  }
  return () => {
    try {
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
  };
}
