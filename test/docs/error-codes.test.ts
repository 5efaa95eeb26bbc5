/**
 * docs/reports.md lists every code a report can carry; the three lists in the code are the truth.
 * A code added without its line in the docs (or a line left behind by a removed code) fails here.
 */
import { readFileSync } from 'node:fs';
import { API_ERROR_CODES } from '../../src/api/errors.js';
import { JOB_ABORT_CODES } from '../../src/pipeline/job-abort.js';
import { ROW_ERROR_CODES } from '../../src/pipeline/report/error-codes.js';
import { CODE_HELP } from '../../src/pipeline/report/code-help.js';

const reports = readFileSync(new URL('../../docs/reports.md', import.meta.url), 'utf8');

/** The codes in the first column of the tables under `### heading`, in order. */
function tableCodes(heading: string): string[] {
  const start = reports.indexOf(`### ${heading}`);
  if (start < 0) throw new Error(`docs/reports.md has no "### ${heading}" section`);
  const rest = reports.slice(start + 4);
  const end = rest.search(/^#{2,3} /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]!);
}

describe('docs/reports.md error codes', () => {
  it.each([
    ["The row's own", ROW_ERROR_CODES],
    ["The platform's answer (API)", API_ERROR_CODES],
  ])('"%s" lists exactly the codes of its list', (heading, codes) => {
    expect([...tableCodes(heading)].sort()).toEqual([...codes].sort());
  });

  it('the abort table lists every abort code that is not an API code (INVALID_TOKEN is in both)', () => {
    const expected = JOB_ABORT_CODES.filter((code) => !(API_ERROR_CODES as readonly string[]).includes(code));
    expect([...tableCodes('The reason the job stopped (abort)')].sort()).toEqual([...expected].sort());
  });

  it('no code is listed twice across the tables', () => {
    const all = [...tableCodes("The row's own"), ...tableCodes("The platform's answer (API)"), ...tableCodes('The reason the job stopped (abort)')];
    expect(all.filter((code, index) => all.indexOf(code) !== index)).toEqual([]);
  });

  it('each line says what CODE_HELP (the words of the HTML report) says, meaning and fix', () => {
    const section = reports.slice(reports.indexOf('## Error codes'), reports.indexOf('## Spreadsheet safety'));
    const documented = Object.fromEntries([...section.matchAll(/^\| `([A-Z0-9_]+)` \| (.*?) \| (.*?) \|$/gm)].map((match) => [match[1]!, { meaning: match[2]!, fix: match[3]! }]));
    expect(documented).toEqual(CODE_HELP);
  });
});
