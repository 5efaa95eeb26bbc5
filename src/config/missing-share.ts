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

/** `10%`, as a message names the share. */
export function describeShare(percent: number): string {
  return `${Number(percent.toFixed(1))}%`;
}
