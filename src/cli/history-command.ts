/**
 * `contact-sync history <jobs.yaml> --job NAME (--key KEY | --run RUN_ID) [--csv]`: the change
 * journal (docs/undo.md) read back: one key's changes run by run, or everything one run changed.
 * `--csv` writes it for an auditor: one line per field or tag, with its value before and after.
 * Read only, and never creates a state file (`open-state.ts`); safe while the job runs (SQLite's WAL, PostgreSQL's MVCC).
 */
import type { Logger } from 'pino';
import { csvLine, valueCsvLine, type CsvCell } from '../pipeline/report/csv-line.js';
import { spreadsheetSafe } from '../pipeline/report/spreadsheet-safe.js';
import type { ChangeLine } from '../state/change-journal.js';
import type { RunRecord } from '../state/run-journal.js';
import { noStateYet, openExistingState } from './open-state.js';
import type { StateAdmin } from '../state/state-port.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from '../exit-codes.js';
import { loadJobs } from './load-jobs.js';
import { resumeNote } from './resume-hint.js';
import { UsageError } from './usage-error.js';

export interface HistoryArgs {
  readonly jobsFile: string;
  readonly job: string;
  readonly key?: string;
  readonly run?: number;
  readonly csv: boolean;
}

/** history --csv's columns; `before_read` (added with issue 34): `yes` when the run read the value before on the platform, `no` when it was the state store's. */
export const HISTORY_COLUMNS = ['run_id', 'recorded_at', 'key', 'contact_id', 'operation', 'field', 'before', 'after', 'before_read'] as const;

export async function historyCommand(args: HistoryArgs, io: CliIo, logger: Logger): Promise<number> {
  if ((args.key === undefined) === (args.run === undefined)) {
    throw new UsageError('history: name either --key KEY (that key\'s changes, run by run) or --run RUN_ID (everything the run changed)');
  }
  const [job] = await loadJobs(args.jobsFile, [args.job], io, logger, { tokenOptional: true });
  if (job === undefined) throw new UsageError(`${args.jobsFile}: no job named "${args.job}"`);
  if (job.state === false) throw new UsageError(`${args.jobsFile}: job "${job.name}" has state: false, so no change of it was journalled; set its state: to a file or a database to keep one`);
  const store: StateAdmin | undefined = await openExistingState(job);
  if (store === undefined) {
    io.stdout.write(`job "${job.name}": no state yet (${noStateYet(job)}); nothing was journalled\n`);
    return EXIT.ok;
  }
  try {
    if (args.run !== undefined && store.run(args.run) === undefined) {
      throw new UsageError(`${args.jobsFile}: job "${job.name}" has no run ${args.run} in its state store; \`contact-sync state show ${args.jobsFile} --job ${job.name}\` lists its runs`);
    }
    const lines = args.key !== undefined ? store.changesOfKey(args.key) : store.changesOfRun(args.run ?? 0);
    if (args.csv) {
      io.stdout.write(csvLine(HISTORY_COLUMNS));
      for (const line of lines) for (const cells of csvCells(line)) io.stdout.write(valueCsvLine(cells.map((cell) => (cell === null ? null : spreadsheetSafe(cell)))));
      return EXIT.ok;
    }
    const what = args.key !== undefined ? `key ${JSON.stringify(args.key)}` : `run ${args.run ?? ''}`;
    if (lines.length === 0) {
      io.stdout.write(`job "${job.name}": no change of ${what} is journalled${args.run === undefined ? '' : dropped(store.run(args.run))}\n`);
      return EXIT.ok;
    }
    let runId: number | undefined;
    for (const line of lines) {
      if (line.runId !== runId) {
        runId = line.runId;
        io.stdout.write(`${runHeading(runId, store.run(runId), args.jobsFile, job.name)}\n`);
      }
      io.stdout.write(`  ${describeChange(line)}\n`);
    }
    return EXIT.ok;
  } finally {
    store.close();
  }
}

/** Why a run's journal holds nothing any more: pruned, or expired by the retention (docs/personal-data.md). */
function dropped(run: RunRecord | undefined): string {
  if (run?.journalExpiredAt != null) return `: its journal expired on ${new Date(run.journalExpiredAt).toISOString()} (retention.journal)`;
  if (run?.prunedAt != null) return `: its journal was pruned on ${new Date(run.prunedAt).toISOString()} (state prune)`;
  return '';
}

function runHeading(runId: number, run: RunRecord | undefined, jobsFile: string, job: string): string {
  if (run === undefined) return `run ${runId}`;
  // An undo that did not finish says how to finish it.
  const unfinished = run.finished ? '' : ', not finished (still running, or killed)';
  return `run ${runId} (${run.argv}, started ${new Date(run.startedAt).toISOString()}${unfinished}${resumeNote(run, jobsFile, job)})`;
}

/**
 * `C0001 1776025372480910 update: email "old@example.com" -> "new@example.com"`; a tags line quotes
 * each tag as a field's value is (`add-tags: "Wholesale, EU", "vip"`): a tag may hold a comma.
 */
export function describeChange(line: ChangeLine): string {
  // Undo vouches only for a before the run read: say so where it did not.
  const head = `${line.key} ${line.contactId} ${line.operation}${line.beforeRead ? '' : ' (before not read: the state store\'s)'}`;
  if ('tags' in line) return `${head}: ${line.tags.map((tag) => JSON.stringify(tag)).join(', ')}`;
  if (line.operation === 'delete') {
    const held = Object.entries(line.values.fields).map(([name, value]) => `${name} ${JSON.stringify(value)}`);
    return `${head}: ${[...held, `tags ${line.values.tags.map((tag) => JSON.stringify(tag)).join(', ') || '(none)'}`].join('; ')}`;
  }
  const merged = line.operation === 'merge' ? ` (merged ${line.merged.join(', ')} into it)` : '';
  const fields = Object.entries(line.fields).map(([name, [before, after]]) => `${name} ${before === null ? '(none)' : JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  return `${head}${merged}: ${fields.join('; ')}`;
}

/** One line's cells: a value absent (none before, a tag's other side) is null, written as nothing; an empty value is `""` (valueCsvLine). */
function csvCells(line: ChangeLine): CsvCell[][] {
  const head = [String(line.runId), new Date(line.recordedAt).toISOString(), line.key, line.contactId, line.operation];
  const read = line.beforeRead ? 'yes' : 'no';
  if ('tags' in line) return line.tags.map((tag) => [...head, tag, line.operation === 'remove-tags' ? tag : null, line.operation === 'add-tags' ? tag : null, read]);
  // A deletion: each value it took away, and each tag (as a removed tag's line is).
  if (line.operation === 'delete') return [...Object.entries(line.values.fields).map(([name, value]) => [...head, name, value, null, read]), ...line.values.tags.map((tag) => [...head, tag, tag, null, read])];
  return Object.entries(line.fields).map(([name, [before, after]]) => [...head, name, before, after, read]);
}
