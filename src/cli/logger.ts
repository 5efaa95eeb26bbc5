/**
 * The job's logger: pino, to stderr. `--log-format json` gives pino's JSON lines for log
 * collectors; `text` gives one readable line per event for cron mail and terminals. Fields that
 * could hold a credential are redacted whatever the format.
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LogFormat = 'text' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const REDACT = ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization'];

export function createLogger(options: { format: LogFormat; level: LogLevel; destination: NodeJS.WritableStream }): Logger {
  const settings = { level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined };
  if (options.format === 'json') return pino(settings, options.destination);
  return pino({ ...settings, timestamp: false }, textStream(options.destination));
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** Turns pino's JSON lines into `level: message key=value` lines. */
function textStream(destination: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        const { level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
        const extras = Object.entries(fields)
          .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
          .join(' ');
        destination.write(`${LEVEL_NAMES[Number(level)] ?? 'log'}: ${typeof msg === 'string' ? msg : ''}${extras === '' ? '' : ` ${extras}`}\n`);
      }
      callback();
    },
  });
}
