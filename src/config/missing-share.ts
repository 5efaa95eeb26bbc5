/**
 * `onMissing.maxShare` (jobs.yaml) and `--max-missing` (the command line): one parser for both.
 * A share of the known keys, `"10%"` (0% to 100%): when more of the keys an earlier run synced are
 * missing from a complete run's input, the departed step is refused (docs/configuration.md).
 */
const FORMS = 'write a share of the known keys such as "10%" (0% to 100%)';

/** The share in percent, or the problem with the value (to follow the value in a message). */
export function parseMissingShare(value: string): { ok: number } | { problem: string } {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(value);
  if (match === null) return { problem: `is not a share; ${FORMS}` };
  const percent = Number(match[1]);
  return percent > 100 ? { problem: 'is more than 100%; write a share from 0% to 100%' } : { ok: percent };
}

/**
 * `verify.share` (jobs.yaml): a share of the keys the state trusts, `"20%"` or a number of percent
 * (`20`), from 0 to 100: each run re-reads at most that share of them (docs/configuration.md).
 */
export function parseVerifyShare(value: string | number): { ok: number } | { problem: string } {
  const forms = 'write a share of the keys the state trusts such as "20%" (or 20), from 0% to 100%';
  const text = typeof value === 'number' ? String(value) : value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  if (match === null || Number.isNaN(Number(match[1]))) return { problem: `is not a share; ${forms}` };
  const percent = Number(match[1]);
  return percent > 100 ? { problem: `is more than 100%; ${forms}` } : { ok: percent };
}

/** `10%`, as a message names the share. */
export function describeShare(percent: number): string {
  return `${Number(percent.toFixed(1))}%`;
}
