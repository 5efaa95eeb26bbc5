import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadJobsFile } from '../../src/config/index.js';
import type { ConfigErrorCode } from '../../src/config/index.js';
import type { Environment } from '../../src/config/index.js';

/** A temporary directory for jobs files; `close()` removes it. */
export interface TempJobsDir {
  dir: string;
  /** Writes `text` to `name` in the directory and returns the file's path. */
  write(name: string, text: string): Promise<string>;
  close(): Promise<void>;
}

export async function createTempJobsDir(): Promise<TempJobsDir> {
  const dir = await mkdtemp(join(tmpdir(), 'contact-sync-config-'));
  return {
    dir,
    async write(name, text) {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A fresh TempJobsDir for each test of the enclosing describe (removed after it); returns a getter. */
export function tempJobsDirPerTest(): () => TempJobsDir {
  let temp: TempJobsDir | undefined;
  beforeEach(async () => {
    temp = await createTempJobsDir();
  });
  afterEach(async () => {
    await temp?.close();
    temp = undefined;
  });
  return () => {
    if (temp === undefined) throw new Error('tempJobsDirPerTest: no directory outside a test');
    return temp;
  };
}

/** Loads `path` expecting a ConfigError, and returns it. */
export async function loadError(path: string, env: Environment = {}): Promise<ConfigError> {
  try {
    await loadJobsFile(path, { env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected ${path} to fail to load`);
}

export function expectCode(error: ConfigError, code: ConfigErrorCode): void {
  expect(error.code).toBe(code);
}

/** A minimal valid connection block, token from the environment. */
export const CONNECTION = `connections:
  main:
    baseUrl: https://app.example.com/api/
    token: \${CHANNEL_TOKEN}
`;
