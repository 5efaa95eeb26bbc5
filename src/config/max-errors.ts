/**
 * `maxErrors` (jobs.yaml) and `--max-errors` (the command line): one parser for both. A count of
 * rows the platform failed (`50`) or a share of the rows sent to it (`"5%"`, from 0% to 100%: a
 * larger share could never be crossed); what counts is pipeline/run/error-threshold.ts's. See
 * docs/configuration.md.
 */
export type MaxErrors = { readonly count: number } | { readonly percent: number };

const FORMS = 'write a count such as 50, or a share such as "5%"';

/** The threshold `value` stands for, or the problem with it (to follow the value in a message). */
export function parseMaxErrors(value: string | number): { ok: MaxErrors } | { problem: string } {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return { problem: `is not a whole number; ${FORMS}` };
    if (value < 0) return { problem: `is negative; ${FORMS}` };
    return { ok: { count: value } };
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
  if (match === null) return { problem: `is not a count or a share; ${FORMS}` };
  const amount = Number(match[1]);
  if (match[2] === '%') return amount > 100 ? { problem: 'is more than 100%; write a share from 0% to 100%' } : { ok: { percent: amount } };
  if (!Number.isInteger(amount)) return { problem: `is not a whole number; ${FORMS}` };
  return { ok: { count: amount } };
}

/** `50` or `5%`, as a message names the threshold. */
export function describeMaxErrors(maxErrors: MaxErrors): string {
  return 'count' in maxErrors ? String(maxErrors.count) : `${maxErrors.percent}%`;
}
