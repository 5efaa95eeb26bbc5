/** `guards:` on a job (issue 37): parsed into the job, each mistake named at its YAML path with the fix. */
import { join } from 'node:path';
import { loadJobsFile } from '../../src/config/index.js';
import { CONNECTION, expectCode, loadError, tempJobsDirPerTest } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };
const dir = tempJobsDirPerTest();

function file(guards: string): string {
  return `${CONNECTION}jobs:\n  - name: a\n    connection: main\n    input: a.csv\n    key: { column: id, field: customerid }\n    guards: ${guards}\n`;
}

describe('guards', () => {
  test('minRows and maxChange are the job\'s, the share in percent', async () => {
    await dir().write('jobs.yaml', file('{ minRows: "500", maxChange: 12.5% }'));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(jobsFile.jobs[0]?.guards).toEqual({ minRows: 500, maxChangePercent: 12.5 });
  });

  test('a minRows that is not a whole number from 1, a share that is not one, and an unknown guard are each named', async () => {
    const error = await loadError(await dir().write('jobs.yaml', file('{ minRows: 0, maxChange: lots, maxRows: 3 }')), env);
    expectCode(error, 'CONFIG_INVALID');
    const messages = error.issues.map(({ path, message }) => `${path}: ${message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^jobs\[0\]\.guards\.minRows: .*guards\.minRows must be a whole number from 1/),
        expect.stringMatching(/^jobs\[0\]\.guards\.maxChange: "lots" is not a share; write a share of the keys the state knows such as "10%"/),
        expect.stringMatching(/^jobs\[0\]\.guards.*maxRows/),
      ]),
    );
  });
});
