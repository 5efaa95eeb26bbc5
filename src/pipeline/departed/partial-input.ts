/**
 * Whether a run's input is a part of the export, on which the departed step (`onMissing`) must
 * not run: a key it lacks has not left the CRM, it was only not in the part. Fed through the
 * nightly job, a rejected file of 80 rows makes 96% of the keys look "missing"; acting on them
 * would tag every current customer as gone. Pure: the run gives the facts, this says why the
 * input is partial, or nothing when it is the whole export. An `--input` that replaces the job's
 * export (a nightly pipe from the database) is whole, as the export is. See docs/state.md, "Keys
 * that leave the file", and docs/reports.md, "Feeding rejected rows back".
 */
import { isFedBackFile } from '../source/error-columns.js';
import { counted } from '../report/counted.js';

export interface InputScope {
  /** `--partial`: the user says the input is a part of the export. */
  readonly markedPartial: boolean;
  /** `--limit`: the run takes at most this many rows. */
  readonly limit: number | undefined;
  /** The input's header: a fed-back rejected file has the error columns. */
  readonly header: readonly string[];
}

const NEXT_COMPLETE_RUN = 'departed keys are looked at by the next run of the whole export';

/** Why the input is not the whole export (summary.json `departed.reason`); undefined when it is. */
export function partialInputReason(scope: InputScope): string | undefined {
  if (scope.markedPartial) return `the input is marked partial (--partial): ${NEXT_COMPLETE_RUN}`;
  if (isFedBackFile(scope.header)) return `the input is a rejected file fed back (it has an error_code or error_message column), a part of the export: ${NEXT_COMPLETE_RUN}`;
  if (scope.limit !== undefined) return `the run takes at most ${counted(scope.limit, 'row')} (--limit), a part of the input: ${NEXT_COMPLETE_RUN}`;
  return undefined;
}
