/**
 * How to finish an undo that did not finish (issue 41 item 18): killed (its run stays "not
 * finished"), interrupted, stopped at `--max-duration` or aborted, an undo is resumed by running it
 * again (docs/undo.md): what it put back reads as unchanged. `state show` and `history` name that
 * command beside the run. Pure: the run's recorded command line (`describeRun` in run-flags.ts:
 * `undo <jobs.yaml> ... --run N [--force] [--key (K keys)] [--keep-created] [--delete-created]`), a table test holds it.
 */
import type { RunRecord } from '../state/run-journal.js';

/** The command that resumes `run` when it is an undo that did not finish, else undefined. `jobsFile`: as the user typed it now. */
export function undoResumeCommand(run: Pick<RunRecord, 'argv' | 'finished' | 'status'>, jobsFile: string, job: string): string | undefined {
  const words = run.argv.split(' ');
  if (words[0] !== 'undo' || words.includes('--dry-run')) return undefined;
  if (run.finished && run.status !== 'interrupted' && run.status !== 'deadline' && run.status !== 'aborted') return undefined;
  const undone = words[words.indexOf('--run') + 1];
  if (!words.includes('--run') || undone === undefined || !/^\d+$/.test(undone)) return undefined;
  const flags = [words.includes('--force') ? ' --force' : '', words.includes('--keep-created') ? ' --keep-created' : '', words.includes('--delete-created') ? ' --delete-created' : '', words.includes('--key') ? ' --key KEY... (the same keys as then)' : ''].join('');
  return `contact-sync undo ${jobsFile} --job ${job} --run ${undone}${flags}`;
}

/** `; resume it: contact-sync undo ...` for a run `undoResumeCommand` names a command for, else "". */
export function resumeNote(run: Pick<RunRecord, 'argv' | 'finished' | 'status'>, jobsFile: string, job: string): string {
  const command = undoResumeCommand(run, jobsFile, job);
  return command === undefined ? '' : `; resume it: ${command}`;
}
