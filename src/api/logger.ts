/**
 * The logger the API client writes to: the subset of pino's interface it uses, so a pino logger
 * (or any object with these four methods) can be passed in.
 */
export interface ApiLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

const ignore = (): void => undefined;

/** Writes nothing: the default when no logger is given. */
export const silentLogger: ApiLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
