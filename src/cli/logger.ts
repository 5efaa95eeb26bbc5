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

const LEVEL_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

/**
 * `logger` with every line's message and string fields passed through `mask` first (a job's
 * `privacy.mask`: report/mask.ts), its children too: one wrapper around the job's logger masks
 * what the job, its API client (a retried call's path holds a v2 key) and its abort log, in either
 * format, without a call at each line.
 */
export function maskingLogger(logger: Logger, mask: (text: string) => string): Logger {
  const masked = (value: unknown): unknown => {
    if (typeof value === 'string') return mask(value);
    if (value instanceof Error) return Object.assign(Object.create(Object.getPrototypeOf(value) as object) as Error, value, { message: mask(value.message), stack: value.stack === undefined ? undefined : mask(value.stack) });
    if (Array.isArray(value)) return value.map(masked);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, masked(item)]));
    return value;
  };
  return new Proxy(logger, {
    get(target, property) {
      if (property === 'child') return (bindings: Record<string, unknown>) => maskingLogger(target.child(bindings), mask);
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property === 'string' && LEVEL_METHODS.has(property)) return (...args: unknown[]) => method.apply(target, args.map(masked));
      return method.bind(target);
    },
  });
}
