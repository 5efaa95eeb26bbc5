/**
 * The keys of issue 23's watching: `metrics` at the top of jobs.yaml, `notify` on a connection and
 * on a job. Each mistake is named with its YAML path and the fix; a URL's credentials never shown.
 */
import { join } from 'node:path';
import { loadJobsFile } from '../../src/config/index.js';
import { CONNECTION, expectCode, loadError, tempJobsDirPerTest } from './temp-jobs-dir.js';

const env = { CHANNEL_TOKEN: 'secret-token' };
const dir = tempJobsDirPerTest();

function file(jobLines: string, top = '', connectionLines = ''): string {
  const indent = (lines: string) => (lines === '' ? '' : `${lines.replace(/^/gm, '    ')}\n`);
  const connection = `${CONNECTION}${indent(connectionLines)}`;
  const job = (name: string) => `  - name: ${name}\n    connection: main\n    input: a.csv\n    key: { column: id, field: customerid }\n`;
  return `${connection}jobs:\n${job('a')}${indent(jobLines)}${job('b')}${top}`;
}

async function messagesOf(text: string): Promise<string[]> {
  const error = await loadError(await dir().write('jobs.yaml', text), env);
  expectCode(error, 'CONFIG_INVALID');
  return error.issues.map(({ path, message }) => `${path}: ${message}`);
}

describe('metrics', () => {
  test('a textfile is resolved against the jobs file, and every job of the file has it', async () => {
    await dir().write('jobs.yaml', file('', 'metrics: { textfile: prom/contact_sync.prom, pushgateway: "http://127.0.0.1:9091" }\n'));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    const expected = { textfile: join(dir().dir, 'prom', 'contact_sync.prom'), pushgateway: 'http://127.0.0.1:9091' };
    expect(jobsFile.metrics).toEqual(expected);
    expect(jobsFile.jobs.map((job) => job.metrics)).toEqual([expected, expected]);
  });

  test('a Pushgateway that is not an http(s) URL is named, without its password', async () => {
    expect(await messagesOf(file('', 'metrics: { pushgateway: "ftp://user:hunter2@gw:9091" }\n'))).toEqual([
      expect.stringMatching(/^metrics\.pushgateway: "ftp:\/\/gw:9091\/?" .*an http:\/\/ or https:\/\/ URL of a Prometheus Pushgateway/),
    ]);
  });

  test('an unknown key under metrics is refused', async () => {
    expect((await messagesOf(file('', 'metrics: { textfle: a.prom }\n')))[0]).toMatch(/^metrics/);
  });
});

describe('notify', () => {
  test('on defaults to failure; the connection\'s is every job\'s default, a job\'s own replaces it', async () => {
    await dir().write('jobs.yaml', file('notify: { webhook: "https://hooks.example.com/job", on: always }', '', 'notify: { webhook: "https://hooks.example.com/all" }'));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(jobsFile.jobs.map((job) => job.notify)).toEqual([
      { webhook: 'https://hooks.example.com/job', on: 'always' },
      { webhook: 'https://hooks.example.com/all', on: 'failure' },
    ]);
  });

  test('no notify anywhere: no job has one', async () => {
    await dir().write('jobs.yaml', file(''));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(jobsFile.jobs.map((job) => job.notify)).toEqual([undefined, undefined]);
  });

  test('a webhook that is not a URL, a missing webhook and an unknown on are each named', async () => {
    const messages = await messagesOf(file('notify: { webhook: "hooks.slack.com/x", on: sometimes }', '', 'notify: { on: always }'));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^connections\.main\.notify\.webhook: /),
        expect.stringMatching(/^jobs\[0\]\.notify\.webhook: "hooks\.slack\.com\/\.\.\." .*an http:\/\/ or https:\/\/ URL/),
        expect.stringMatching(/^jobs\[0\]\.notify\.on: .*failure.*always/),
      ]),
    );
  });

  test('a heartbeat alone is a notify; the job\'s replaces the connection\'s whole', async () => {
    await dir().write('jobs.yaml', file('notify: { heartbeat: "https://hc-ping.com/job-a" }', '', 'notify: { webhook: "https://hooks.example.com/all", heartbeat: "https://hc-ping.com/all" }'));
    const { jobsFile } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    expect(jobsFile.jobs.map((job) => job.notify)).toEqual([
      { heartbeat: 'https://hc-ping.com/job-a', on: 'failure' },
      { webhook: 'https://hooks.example.com/all', heartbeat: 'https://hc-ping.com/all', on: 'failure' },
    ]);
  });

  test('a notify with no one to tell, and an on with no webhook to time, are each named with the fix', async () => {
    expect(await messagesOf(file('notify: {}', '', 'notify: { heartbeat: "https://hc-ping.com/x", on: always }'))).toEqual([
      'connections.main.notify.on: says when the webhook is told, and this notify has no webhook (a heartbeat is pinged at every start and end); add webhook: URL or remove on',
      'jobs[0].notify.webhook: is missing, and so is heartbeat: notify names no one to tell; add webhook: URL (a chat notice when the job ends) or heartbeat: URL (a cron monitor\'s ping), or remove notify',
    ]);
  });

  test('a webhook or heartbeat over plain http:// to another host is a warning naming its path and the fix; loopback is not (issue 42)', async () => {
    await dir().write(
      'jobs.yaml',
      file('notify: { webhook: "http://hooks.example.com/services/s3cr3t", heartbeat: "http://127.0.0.1:8000/ping/s3cr3t" }', '', 'notify: { heartbeat: "http://hc.internal:8000/ping/s3cr3t?key=s3cr3t" }'),
    );
    const { warnings } = await loadJobsFile(join(dir().dir, 'jobs.yaml'), { env });
    const said = warnings.filter((warning) => warning.includes('in clear over http://'));
    expect(said).toEqual([
      expect.stringMatching(/connections\.main\.notify\.heartbeat: sends its URL, and the secret in its path or query, in clear over http:\/\/ to hc\.internal:8000; use https:\/\/ \(hc\.internal:8000 must serve it\), or keep the heartbeat on this host \(line 5\)$/),
      expect.stringMatching(/jobs\[0\]\.notify\.webhook: sends its URL, .* over http:\/\/ to hooks\.example\.com; use https:\/\//),
    ]);
    expect(said.join('\n')).not.toMatch(/s3cr3t/);
  });

  test('a heartbeat that is not an http(s) URL is named', async () => {
    expect(await messagesOf(file('notify: { heartbeat: "hc-ping.com/x" }'))).toEqual([expect.stringMatching(/^jobs\[0\]\.notify\.heartbeat: .*an http:\/\/ or https:\/\/ URL of a cron monitor's check/)]);
  });

  test('a webhook\'s secret path or query is never shown: only its origin, as the runtime warnings show it', async () => {
    const messages = await messagesOf(
      file('notify: { webhook: "ftp://hooks.example.com/services/T0/B0/s3cr3t-path?token=s3cr3t-query" }', 'metrics: { pushgateway: "gw.example.com:9091/metrics/s3cr3t-gw" }\n', 'notify: { webhook: "hooks.slack.com/services/T0/B0/s3cr3t-bare" }'),
    );
    expect(messages).toEqual([
      'connections.main.notify.webhook: "hooks.slack.com/..." is not a URL; write an http:// or https:// URL, e.g. a Slack incoming webhook',
      'jobs[0].notify.webhook: "ftp://hooks.example.com/..." uses ftp; write an http:// or https:// URL, e.g. a Slack incoming webhook',
      expect.stringMatching(/^metrics\.pushgateway: "gw\.example\.com:9091\/\.\.\." /),
    ]);
    expect(messages.join('\n')).not.toMatch(/s3cr3t/);
  });
});
