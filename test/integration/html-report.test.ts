/**
 * `<job>.report.html`: one self-contained file a person opens after a run: outcome counts, calls
 * by operation against the least the data needed, calls per minute against the limit, failures by
 * code with their fix and first lines, messages by status, links to the CSVs. Read here with an
 * HTML parser, after a real run against the emulator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type HTMLElement } from 'node-html-parser';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { customersCsv, CUSTOMERS_JOB, fastEmulator, jobsYaml, TOKEN, workspace } from '../helpers/cli-harness.js';

const cellsOf = (table: HTMLElement | null): string[][] => (table?.querySelectorAll('tr') ?? []).map((tr) => tr.querySelectorAll('td, th').map((cell) => cell.text.trim()));

describe('the run report', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await fastEmulator();
  });
  afterEach(() => emulator.close());

  it('says what the run did, with the fix for each failure, and links the CSVs', async () => {
    const ws = workspace();
    // Rows 4 and 7 have no key; row 9 an invalid email: 7 created, 3 failed.
    ws.write('customers.csv', customersCsv(10, (i, cells) => (i === 4 || i === 7 ? ['', ...cells.slice(1)] : i === 9 ? [cells[0]!, cells[1]!, cells[2]!, 'not-an-email', ...cells.slice(4)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('import.report.html');

    const html = readFileSync(join(ws.dir, 'reports', 'import.report.html'), 'utf8');
    const doc = parse(html);
    const summary = ws.summary('import');

    // Self-contained: no script, no external reference, a CSP that forbids any request.
    expect(doc.querySelectorAll('script, link, img, iframe')).toEqual([]);
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content')).toContain("default-src 'none'");
    expect(html).not.toContain(TOKEN);

    // Outcomes: the summary's counts.
    const outcomes = Object.fromEntries(cellsOf(doc.querySelector('#outcomes + .bar + table')).map(([name, count]) => [name!.replace(/^\W+/, ''), Number(count)]));
    expect(outcomes).toEqual({ created: 7, updated: 0, unchanged: 0, skipped: 0, failed: 3, total: 10 });
    expect(summary.rows).toMatchObject({ created: 7, failed: 3 });

    // Calls by operation next to the least the data needed.
    const calls = Object.fromEntries(cellsOf(doc.querySelector('#calls + table')).slice(1).map(([operation, made, least]) => [operation, [made, least]]));
    expect(calls.searchContacts).toEqual([String(summary.apiCalls.byOperation.searchContacts), 'lookup']);
    expect(calls.createContact).toEqual(['7', '7']);
    expect(calls.addTags).toEqual([String(summary.apiCalls.byOperation.addTags), '7']);

    // The chart: one bar per minute, the limit drawn.
    const svg = doc.querySelector('#rate + svg');
    expect(svg?.querySelectorAll('rect title').map((title) => title.text)).toEqual([`minute 1: ${summary.apiCalls.total} calls`]);
    expect(svg?.text).toContain('limit 60000/min');

    // Failures by code, most frequent first, with the fix and the first lines.
    const failures = doc.querySelectorAll('#failures ~ h3').map((h3) => h3.text);
    expect(failures).toEqual(['KEY_MISSING: 2 rows', 'INVALID_EMAIL: 1 row']);
    expect(html).toContain('<strong>Fix:</strong> fill the key, or drop the row from the export.');
    const keyMissingLines = cellsOf(doc.querySelectorAll('#failures ~ table')[0]!).slice(1).map(([line]) => line);
    expect(keyMissingLines).toEqual(['5', '8']);

    // Links to the CSV files beside it.
    expect(doc.querySelectorAll('#files + ul a').map((a) => a.getAttribute('href'))).toEqual(['import.results.csv', 'import.rejected.csv', 'import.changes.csv', 'import.summary.json']);
  });

  it('a job with a message shows its messages by status', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: `${CUSTOMERS_JOB}\nmessage: { when: created, text: "Hi {{first_name}}" }` }));

    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(0);

    const doc = parse(readFileSync(join(ws.dir, 'reports', 'import.report.html'), 'utf8'));
    expect(Object.fromEntries(cellsOf(doc.querySelector('#messages + table')))).toEqual({ sent: '3', skipped: '0', failed: '0', unknown: '0' });
    expect(doc.querySelector('#failures + p')?.text).toBe('No row failed.');
  });
});
