/**
 * The keys of a sync that runs for months (issue 13): tags.prune and tags.owned, onMissing. Each
 * mistake is named with its YAML path and the fix.
 */
import { loadJobsFile } from '../../src/config/index.js';
import { CONNECTION, expectCode, loadError, tempJobsDirPerTest } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };
const dir = tempJobsDirPerTest();

function oneJob(lines: string): string {
  return `${CONNECTION}jobs:\n  - name: a\n    connection: main\n    input: a.csv\n    key: { column: id, field: customerid }\n${lines.replace(/^/gm, '    ')}\n`;
}

async function messagesOf(text: string): Promise<string[]> {
  const error = await loadError(await dir().write('jobs.yaml', text), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message }) => `${path}: ${message}`);
}

describe('tags.prune and tags.owned', () => {
  test('prune without a state store and without owned names both fixes', async () => {
    expect(await messagesOf(oneJob('tags: { column: seg, prune: true }\nstate: false'))).toEqual([
      'jobs[0].tags.prune: needs to know which tags this job set: keep a state store (remove state: false), or name the tags this job owns in tags.owned (a list, or {prefix: "seg:"})',
    ]);
  });

  test('prune with a state store, or with owned, is read as given', async () => {
    await dir().write('jobs.yaml', oneJob('tags: { column: seg, prune: true, owned: { prefix: "seg:" } }\nstate: false'));
    const { jobsFile } = await loadJobsFile(`${dir().dir}/jobs.yaml`, { env });
    expect(jobsFile.jobs[0]?.tags).toMatchObject({ prune: true, owned: { kind: 'prefix', prefix: 'seg:' } });
    await dir().write('jobs.yaml', oneJob('tags: { column: seg, prune: "true", owned: [a, b, a] }'));
    const listed = await loadJobsFile(`${dir().dir}/jobs.yaml`, { env });
    expect(listed.jobsFile.jobs[0]?.tags).toMatchObject({ prune: true, owned: { kind: 'list', tags: ['a', 'b'] } });
  });

  test('owned without prune is a warning: it would do nothing', async () => {
    await dir().write('jobs.yaml', oneJob('tags: { column: seg, owned: [a] }'));
    const { warnings } = await loadJobsFile(`${dir().dir}/jobs.yaml`, { env });
    expect(warnings).toEqual([expect.stringContaining('jobs[0].tags.owned: is used only with prune: true; set tags.prune: true, or remove it')]);
  });

  test('an empty prefix is refused', async () => {
    expect(await messagesOf(oneJob('tags: { column: seg, prune: true, owned: { prefix: "" } }'))).toEqual(['jobs[0].tags.owned.prefix: is empty; write a tag prefix such as "seg:"']);
  });
});

describe('tags.case', () => {
  test('lower is read; keep, the default, leaves the job as before', async () => {
    await dir().write('jobs.yaml', oneJob('tags: { column: seg, case: lower }'));
    expect((await loadJobsFile(`${dir().dir}/jobs.yaml`, { env })).jobsFile.jobs[0]?.tags.case).toBe('lower');
    await dir().write('jobs.yaml', oneJob('tags: { column: seg, case: keep }'));
    expect((await loadJobsFile(`${dir().dir}/jobs.yaml`, { env })).jobsFile.jobs[0]?.tags).toEqual({ column: 'seg', separator: ';', static: [], remove: [], prune: false });
  });

  test('with lower, every tag the job names itself must be lowercase: each is named with the fix', async () => {
    expect(await messagesOf(oneJob('tags: { column: seg, case: lower, static: [CRM, ok], remove: [Lead], prune: true, owned: { prefix: "Seg:" } }\nonMissing: { action: tag, tags: [Left-CRM] }'))).toEqual([
      'jobs[0].tags.static[0]: "CRM" is not lowercase, and tags.case: lower writes every tag of the column in lowercase; write "crm"',
      'jobs[0].tags.remove[0]: "Lead" is not lowercase, and tags.case: lower writes every tag of the column in lowercase; write "lead"',
      'jobs[0].tags.owned.prefix: "Seg:" is not lowercase, and tags.case: lower writes every tag of the column in lowercase; write "seg:"',
      'jobs[0].onMissing.tags[0]: "Left-CRM" is not lowercase, and tags.case: lower writes every tag of the column in lowercase; write "left-crm"',
    ]);
  });

  test('an unknown case is refused with the choices', async () => {
    expect((await messagesOf(oneJob('tags: { column: seg, case: upper }')))[0]).toMatch(/^jobs\[0\]\.tags\.case: .*keep.*lower/);
  });
});

describe('a field\'s onInvalid', () => {
  test('skip-field is read; fail-row, the default, leaves the field as before', async () => {
    await dir().write('jobs.yaml', oneJob('fields:\n  email: { column: mail, transform: [email], onInvalid: skip-field }\n  phone: { column: tel, onInvalid: fail-row }'));
    const fields = (await loadJobsFile(`${dir().dir}/jobs.yaml`, { env })).jobsFile.jobs[0]?.fields;
    expect(fields?.map((field) => [field.name, field.onInvalid])).toEqual([
      ['email', 'skip-field'],
      ['phone', undefined],
    ]);
  });

  test('another value is refused with the choices', async () => {
    expect((await messagesOf(oneJob('fields:\n  email: { column: mail, onInvalid: skip }')))[0]).toMatch(/^jobs\[0\]\.fields\.email(\.onInvalid)?: .*/);
  });
});

describe('onMissing', () => {
  test('defaults: keep, 10%', async () => {
    await dir().write('jobs.yaml', oneJob('onMissing: {}'));
    const { jobsFile } = await loadJobsFile(`${dir().dir}/jobs.yaml`, { env });
    expect(jobsFile.jobs[0]?.onMissing).toEqual({ action: 'keep', tags: [], fields: {}, maxSharePercent: 10 });
  });

  test('needs a state store', async () => {
    expect(await messagesOf(oneJob('onMissing: { action: tag, tags: [left-crm] }\nstate: false'))).toEqual([
      'jobs[0].onMissing: needs a state store to know the keys earlier runs synced; remove state: false from this job, or remove onMissing',
    ]);
  });

  test('each action has what it needs, and nothing it would ignore', async () => {
    expect(await messagesOf(oneJob('onMissing: { action: tag }'))).toEqual(['jobs[0].onMissing.tags: is missing; action: tag needs the tags, e.g. tags: [left-crm]']);
    expect((await messagesOf(oneJob('onMissing: { action: update, tags: [x] }'))).sort()).toEqual([
      'jobs[0].onMissing.fields: is missing; action: update needs the fields to set, e.g. fields: {status: inactive}',
      'jobs[0].onMissing.tags: are used only with action: tag or untag (this action is update); set the action or remove them',
    ]);
    expect(await messagesOf(oneJob('onMissing: { action: untag, tags: [x], fields: { status: gone } }'))).toEqual([
      'jobs[0].onMissing.fields: are used only with action: update (this action is untag); set action: update or remove them',
    ]);
    expect(await messagesOf(oneJob('onMissing: { action: update, fields: { customerid: gone } }'))).toEqual([
      'jobs[0].onMissing.fields.customerid: "customerid" is the key field; a departed contact keeps its key: remove it',
    ]);
  });

  test('maxShare is a share in percent', async () => {
    expect(await messagesOf(oneJob('onMissing: { maxShare: 0.1 }'))).toEqual([
      'jobs[0].onMissing.maxShare: 0.1 is a number; write a share of the known keys such as "10%": when more are missing, the step is refused',
    ]);
    expect(await messagesOf(oneJob('onMissing: { maxShare: "150%" }'))).toEqual(['jobs[0].onMissing.maxShare: "150%" is more than 100%; write a share from 0% to 100%']);
    await dir().write('jobs.yaml', oneJob('onMissing: { action: untag, tags: [active], maxShare: 2.5% }'));
    const { jobsFile } = await loadJobsFile(`${dir().dir}/jobs.yaml`, { env });
    expect(jobsFile.jobs[0]?.onMissing).toMatchObject({ action: 'untag', tags: ['active'], maxSharePercent: 2.5 });
  });
});
