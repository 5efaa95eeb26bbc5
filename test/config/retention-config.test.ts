/**
 * `retention: {journal: DURATION}` (issue 45): at the top of jobs.yaml for every job, on a job for
 * itself (the job's wins); a value that is not a duration, or out of range, is named with its YAML
 * path and the accepted form.
 */
import { join } from 'node:path';
import { loadJobsFile } from '../../src/config/index.js';
import { CONNECTION, expectCode, loadError, tempJobsDirPerTest } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };
const dir = tempJobsDirPerTest();

function file(jobLines: string, top = ''): string {
  const job = (name: string, lines = '') => `  - name: ${name}\n    connection: main\n    input: a.csv\n    key: { column: id, field: customerid }\n${lines === '' ? '' : `    ${lines}\n`}`;
  return `${CONNECTION}jobs:\n${job('a', jobLines)}${job('b')}${top}`;
}

async function messagesOf(text: string): Promise<string[]> {
  const error = await loadError(await dir().write('jobs.yaml', text), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message }) => `${path}: ${message}`);
}

describe('retention', () => {
  test("the file's retention is every job's; a job's own wins; none without either", async () => {
    await dir().write('jobs.yaml', file('retention: { journal: 12h }', 'retention: { journal: 90d }\n'));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(jobsFile.jobs.map((job) => job.retention)).toEqual([
      { journal: '12h', journalMs: 12 * 3_600_000, setAt: 'jobs[0].retention.journal' },
      { journal: '90d', journalMs: 90 * 86_400_000, setAt: 'retention.journal' },
    ]);
    await dir().write('jobs.yaml', file(''));
    const none = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(none.jobsFile.jobs.map((job) => job.retention)).toEqual([undefined, undefined]);
  });

  test('a retention in seconds is read as such', async () => {
    await dir().write('jobs.yaml', file('retention: { journal: 30s }'));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(jobsFile.jobs[0]?.retention?.journalMs).toBe(30_000);
  });

  test.each([
    ['90', 'jobs[0].retention.journal: "90" is not a duration; write a whole number with a unit: 90d, 12h, 30s'],
    ['3 months', 'jobs[0].retention.journal: "3 months" is not a duration; write a whole number with a unit: 90d, 12h, 30s'],
    ['500ms', 'jobs[0].retention.journal: "500ms" is out of range; write a duration between 1s and 3650d, e.g. 90d'],
    ['4000d', 'jobs[0].retention.journal: "4000d" is out of range; write a duration between 1s and 3650d, e.g. 90d'],
  ])('a journal retention of %s is refused, naming its path and the form', async (value, message) => {
    expect(await messagesOf(file(`retention: { journal: "${value}" }`))).toEqual([message]);
  });

  test('at the top, the path is the top-level one; an unknown key under retention is refused', async () => {
    expect(await messagesOf(file('', 'retention: { journal: forever }\n'))).toEqual(['retention.journal: "forever" is not a duration; write a whole number with a unit: 90d, 12h, 30s']);
    expect((await messagesOf(file('retention: { journl: 90d }'))).join('\n')).toContain('jobs[0].retention');
  });
});
