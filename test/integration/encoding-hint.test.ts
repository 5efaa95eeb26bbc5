/**
 * A windows-1252 export read as UTF-8 fails row by row (CSV_INVALID_BYTES); the file-level cause is
 * said once: "this file looks like windows-1252: set input.encoding: windows-1252". A UTF-8 file
 * with a damaged row gets no such advice.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMERS_JOB, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';
import iconv from 'iconv-lite';

const HEADER = 'customer_id,first_name,last_name,email,plan,segments\n';

describe('the windows-1252 hint', () => {
  it('validate and run say it once, at file level, when the bad bytes are single accented letters', async () => {
    const emulator = await fastEmulator();
    try {
      const ws = workspace();
      const text = `${HEADER}C1,José,Núñez,a@example.com,pro,vip\nC2,Ann,Lee,b@example.com,pro,vip\nC3,Zoë,Brontë,c@example.com,basic,vip\n`;
      writeFileSync(join(ws.dir, 'customers.csv'), iconv.encode(text, 'windows-1252'));
      ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));

      const validate = await ws.run(['validate', 'jobs.yaml']);
      expect(validate.exitCode).toBe(1);
      expect(validate.stdout.match(/looks like windows-1252/g)).toHaveLength(1);
      expect(validate.stdout).toMatch(/customers\.csv: this file looks like windows-1252, not UTF-8 .*; set input\.encoding: windows-1252/);

      const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports']);
      expect(run.exitCode).toBe(1);
      expect(ws.results('import').map((row) => row.error_code).sort()).toEqual(['', 'CSV_INVALID_BYTES', 'CSV_INVALID_BYTES']);
      expect(run.stderr.match(/looks like windows-1252/g)).toHaveLength(1);

      // Following the advice reads every row.
      ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB.replace('input: customers.csv', 'input: { path: customers.csv, encoding: windows-1252 }') }));
      const fixed = await ws.run(['validate', 'jobs.yaml']);
      expect(fixed.exitCode).toBe(0);
      expect(fixed.stdout).not.toContain('looks like');
    } finally {
      await emulator.close();
    }
  });

  it('a UTF-8 file with a run of damaged bytes gets the row errors, not the advice', async () => {
    const ws = workspace();
    const good = Buffer.from(`${HEADER}C1,José,Lee,a@example.com,pro,vip\n`, 'utf8');
    const damaged = Buffer.concat([Buffer.from('C2,An'), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from('n,Lee,b@example.com,pro,vip\n')]);
    writeFileSync(join(ws.dir, 'customers.csv'), Buffer.concat([good, damaged]));
    ws.write('jobs.yaml', jobsYaml({ url: 'https://app.example.com/api', job: CUSTOMERS_JOB }));

    const validate = await ws.run(['validate', 'jobs.yaml']);

    expect(validate.exitCode).toBe(1);
    expect(validate.stdout).toContain('CSV_INVALID_BYTES');
    expect(validate.stdout).not.toContain('looks like');
  });
});
