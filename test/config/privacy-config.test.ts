/** `privacy: {mask: [FIELD, ...]}` on a job and at the top of jobs.yaml (issue 45, docs/configuration.md). */
import { loadJobsFile } from '../../src/config/index.js';
import { createTempJobsDir, expectCode, loadError } from './temp-jobs-dir.js';
import type { TempJobsDir } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };

let temp: TempJobsDir;
beforeEach(async () => {
  temp = await createTempJobsDir();
});
afterEach(async () => {
  await temp.close();
});

/** Two jobs: `a` keyed by email with firstName and phone, `b` keyed by customerid with plan. */
function jobsFile(options: { top?: string; a?: string; b?: string } = {}): string {
  return [
    'connections:',
    '  main:',
    '    baseUrl: https://api.respond.io/v2',
    '    api: v2',
    '    token: ${CHANNEL_TOKEN}',
    ...(options.top === undefined ? [] : [`privacy: ${options.top}`]),
    'jobs:',
    '  - name: a',
    '    connection: main',
    '    input: a.csv',
    '    key: { column: email, field: email }',
    '    fields: { firstName: first_name, phone: phone }',
    ...(options.a === undefined ? [] : [`    privacy: ${options.a}`]),
    '  - name: b',
    '    connection: main',
    '    input: b.csv',
    '    key: { column: id, field: customerid }',
    '    fields: { plan: plan }',
    ...(options.b === undefined ? [] : [`    privacy: ${options.b}`]),
    '',
  ].join('\n');
}

async function issuesOf(text: string): Promise<Array<{ path: string; message: string }>> {
  const error = await loadError(await temp.write('jobs.yaml', text), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message }) => ({ path, message }));
}

describe('privacy.mask', () => {
  test('a job masks the top-level list (the fields it maps) and its own together; without privacy nothing is masked', async () => {
    const loaded = await loadJobsFile(await temp.write('jobs.yaml', jobsFile({ top: '{ mask: [email, plan] }', a: '{ mask: [firstName, email] }' })), { env });
    const [a, b] = loaded.jobsFile.jobs;
    expect(a!.privacy).toEqual({ mask: ['email', 'firstName'] });
    expect(b!.privacy).toEqual({ mask: ['plan'] });
    const none = await loadJobsFile(await temp.write('none.yaml', jobsFile()), { env });
    expect(none.jobsFile.jobs.map((job) => job.privacy)).toEqual([undefined, undefined]);
    const jobOnly = await loadJobsFile(await temp.write('job-only.yaml', jobsFile({ b: '{ mask: [customerid] }' })), { env });
    expect(jobOnly.jobsFile.jobs.map((job) => job.privacy)).toEqual([undefined, { mask: ['customerid'] }]);
  });

  test('a name the job does not map is exit 2, naming the YAML path, the name, the closest field and the fields it maps', async () => {
    const issues = await issuesOf(jobsFile({ a: '{ mask: [email, emial, plan] }' }));
    expect(issues).toEqual([
      { path: 'jobs[0].privacy.mask[1]', message: expect.stringContaining('"emial" is not a field this job maps; did you mean "email"? (it maps email, firstName, phone') },
      { path: 'jobs[0].privacy.mask[2]', message: expect.stringContaining('"plan" is not a field this job maps (it maps email, firstName, phone') },
    ]);
  });

  test('a top-level name no job maps is exit 2; one some job maps is not', async () => {
    const issues = await issuesOf(jobsFile({ top: '{ mask: [plan, firstname] }' }));
    expect(issues).toEqual([{ path: 'privacy.mask[1]', message: expect.stringContaining('"firstname" is a field no job of this file maps; did you mean "firstName"? (the jobs map email, firstName, phone, customerid, plan') }]);
  });

  test('the schema refuses a key privacy does not have and a mask that is not a list', async () => {
    const issues = await issuesOf(jobsFile({ a: '{ mask: email, hide: [phone] }' }));
    expect(issues.map((issue) => issue.path).sort()).toEqual(['jobs[0].privacy.hide', 'jobs[0].privacy.mask']);
  });
});
