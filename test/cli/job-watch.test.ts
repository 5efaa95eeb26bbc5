/**
 * JobWatch's heartbeat at a job's end (issue 41 item 14): exit 4, the planned end of a night of a
 * multi-night import, is a success ping, a POST to the check's own URL saying its status; never
 * `/fail`. A monitor on 127.0.0.1, port 0.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { JobWatch } from '../../src/cli/job-watch.js';
import type { Job } from '../../src/config/job-types.js';
import { recordingServer, type RecordingServer } from '../helpers/recording-server.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

describe('the heartbeat of a job\'s end', () => {
  let server: RecordingServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each([
    [0, 'GET /ping/s3cr3t', ''],
    [4, 'POST /ping/s3cr3t', 'exit 4: stopped at --max-duration with rows not reached, as planned; the next run goes on with them\n'],
    [3, 'GET /ping/s3cr3t/fail', ''],
  ])('exit %i: %s', async (exitCode, ping, body) => {
    server = await recordingServer({ path: '/ping/s3cr3t' });
    const log = new Capture();
    const watch = new JobWatch({}, process.cwd(), undefined, pino({ level: 'warn' }, log));
    const job = { name: 'crm', notify: { heartbeat: server.url, on: 'failure' } } as unknown as Job;
    watch.started(job);
    await watch.ended(job, new Date(), { exitCode }, new AbortController().signal);
    expect(server.requests.map((request) => [`${request.method} ${request.path}`, request.body])).toEqual([
      ['GET /ping/s3cr3t/start', ''],
      [ping, body],
    ]);
    expect(log.text).toBe('');
  });
});
