/**
 * Inputs the platform refuses (fixtures/bad/): a wrong token stops the job at its first 401
 * (exit 3, INVALID_TOKEN, every row taken still reported); a custom field the workspace lacks
 * fails only the rows that write it (FORBIDDEN, naming the field and the fix), the others are
 * written. Neither kind of failed row is in rejected.csv: nothing in them is to fix.
 */
import { TOKEN, workspace } from '../helpers/cli-harness.js';
import { byLine, contactWithKey, contactsWithKey, emulatorPerTest } from '../helpers/integration-fixtures.js';
import { corpusEnv, loggedCodes, loggedErrors, runCase } from './support/bad-input-corpus.js';

describe('a wrong token (401)', () => {
  const emulator = emulatorPerTest();

  it('INVALID_TOKEN, exit 3, naming the connection and the fix; every row taken is reported, none written', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'valid-customers', corpusEnv(emulator(), 'wrong-token-6c1d'));

    expect(run.exitCode).toBe(3);
    expect(loggedCodes(run)).toEqual(['INVALID_TOKEN']);
    expect(loggedErrors(run.stderr)[0]?.msg).toBe('job aborted: the platform refused the token of connection "main" (401); check the channel token it reads');
    const summary = ws.summary('valid-customers');
    expect(summary.aborted).toEqual({ code: 'INVALID_TOKEN', message: 'the platform refused the token of connection "main" (401); check the channel token it reads' });
    const results = ws.results('valid-customers');
    expect(results).toHaveLength(summary.rows.total!);
    expect(results.filter((row) => !(row.outcome === 'failed'))).toEqual([]);
    // Nothing in those rows is wrong: they are to run again, not in rejected.csv (docs/reports.md, "Rows that failed").
    expect(ws.rejected('valid-customers')).toEqual([]);
    expect(summary.failedRows).toMatchObject({ toFix: 0, toRunAgain: results.length });
    expect(emulator().contacts(TOKEN)).toEqual([]);
  });
});

describe('a custom field the workspace does not have (403)', () => {
  // Only the spec's eight fields exist in this workspace: loyaltyTier does not.
  const emulator = emulatorPerTest({ allowedFields: [] });

  it('FORBIDDEN for the rows that write it, naming the field and the fix, exit 1; the rows without a value for it are written', async () => {
    const ws = workspace();
    const run = await runCase(ws, 'unknown-custom-field', corpusEnv(emulator()));

    expect(run.exitCode).toBe(1);
    const results = byLine(ws.results('unknown-custom-field'));
    expect(results.map((row) => [row.line, row.key, row.outcome, row.error_code])).toEqual([
      ['2', 'C1', 'failed', 'FORBIDDEN'],
      ['3', 'C2', 'created', ''],
      ['4', 'C3', 'failed', 'FORBIDDEN'],
      ['5', 'C4', 'created', ''],
    ]);
    for (const row of results.filter((r) => r.outcome === 'failed')) {
      expect(row.error_message).toContain('custom field "loyaltyTier" does not exist in this workspace');
      expect(row.error_message).toContain('a custom field must exist in the workspace before a value is written to it');
    }
    // The rows are right; the workspace lacks the field: once it is created, the same command again takes them.
    expect(ws.rejected('unknown-custom-field')).toEqual([]);
    expect(ws.summary('unknown-custom-field').failedRows).toMatchObject({ toFix: 0, toRunAgain: 2 });
    expect(contactsWithKey(emulator(), 'C1')).toEqual([]);
    expect(contactWithKey(emulator(), 'C2').custom_fields).toEqual({ customerid: 'C2', firstName: 'Bob', lastName: 'Baker', email: 'bob@example.com' });
    expect(emulator().contacts(TOKEN)).toHaveLength(2);
  });
});
