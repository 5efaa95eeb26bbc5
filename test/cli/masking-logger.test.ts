/** The job's logger under `privacy.mask` (cli/logger.ts `maskingLogger`): every line's message and fields, its children's too, in both formats. */
import { Writable } from 'node:stream';
import { createLogger, maskingLogger, type LogFormat } from '../../src/cli/logger.js';
import { createMasker } from '../../src/pipeline/report/mask.js';

function capture(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      stream.text += chunk.toString('utf8');
      callback();
    },
  }) as Writable & { text: string };
  stream.text = '';
  return stream;
}

const masker = createMasker(['email'], 'email');

describe.each<LogFormat>(['text', 'json'])('maskingLogger, %s lines', (format) => {
  it('masks the message, the fields and a child\'s lines; the level and the other fields stay', async () => {
    const out = capture();
    const logger = maskingLogger(createLogger({ format, level: 'debug', destination: out }), (text) => masker.text(text));
    logger.info({ job: 'people', path: '/v2/contact/email:jane.doe%40example.com', attempt: 2, nested: { to: ['+6591234567'] } }, 'api call retried');
    logger.child({ job: 'people' }).error({ code: 'API_UNAVAILABLE' }, 'job aborted: GET /v2/contact/email:jane.doe%40example.com: 500');
    logger.warn('jane.doe@example.com');
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text).not.toMatch(/jane\.doe|6591234567/);
    expect(out.text).toContain('/v2/contact/email:j•••@example.com');
    expect(out.text).toContain('+65•••••567');
    expect(out.text).toContain('job aborted: GET /v2/contact/email:j•••@example.com: 500');
    expect(out.text).toContain('API_UNAVAILABLE');
    expect(logger.isLevelEnabled('debug')).toBe(true);
    expect(out.text.trim().split('\n')).toHaveLength(3);
  });
});
