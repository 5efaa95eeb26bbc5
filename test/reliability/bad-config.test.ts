/**
 * Bad jobs files (fixtures/bad/*.yaml): the run stops before reading any row or making any call,
 * exit 2, with a message naming the file, the line (and YAML path) and the fix, and the stable
 * code in the JSON log.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { workspace, type CliRun } from '../helpers/cli-harness.js';
import { callsByOperation, emulatorPerTest } from '../helpers/integration-fixtures.js';
import { CORPUS_JOBS, corpusEnv, corpusFile, errorText, loggedCodes } from './support/bad-input-corpus.js';

describe('bad jobs files (fixtures/bad/)', () => {
  const emulator = emulatorPerTest();

  async function run(file: string, env: Record<string, string> = corpusEnv(emulator()), extra: string[] = []): Promise<CliRun & { dir: string }> {
    const ws = workspace();
    const result = await ws.run(['run', file.startsWith('/') ? file : corpusFile(file), ...extra, '--report-dir', 'reports', '--log-format', 'json'], { env });
    return { ...result, dir: ws.dir };
  }

  function expectStoppedBeforeAnyRow(result: CliRun & { dir: string }): void {
    expect(result.exitCode).toBe(2);
    expect(callsByOperation(emulator()).total).toBe(0);
    expect(existsSync(join(result.dir, 'reports'))).toBe(false);
  }

  it('a YAML syntax error (a { never closed): CONFIG_SYNTAX, exit 2, naming the file, line and column and what to close', async () => {
    const result = await run('yaml-syntax-error.yaml');

    expectStoppedBeforeAnyRow(result);
    expect(errorText(result)).toContain(`${corpusFile('yaml-syntax-error.yaml')}: line 11, column 5: YAML syntax error: Flow map in block collection must be sufficiently indented and end with a }`);
    expect(loggedCodes(result)).toEqual(['CONFIG_SYNTAX']);
  });

  it('a YAML list item without its dash: CONFIG_SYNTAX, exit 2, naming the line, with a fix about the dash or the indentation (not about quotes)', async () => {
    const result = await run('yaml-list-item-without-dash.yaml');

    expectStoppedBeforeAnyRow(result);
    const message = result.stderr.split('\n').find((line) => line.includes('YAML syntax error')) ?? '';
    expect(message).toContain(`${corpusFile('yaml-list-item-without-dash.yaml')}: line 12`);
    expect(message.split('; ').at(-1)).toMatch(/indent|"- "|dash/);
    expect(loggedCodes(result)).toEqual(['CONFIG_SYNTAX']);
  });

  it('an unknown config key: CONFIG_INVALID, exit 2, naming the YAML path and line, with "did you mean"', async () => {
    const result = await run('unknown-config-key.yaml');

    expectStoppedBeforeAnyRow(result);
    expect(errorText(result)).toContain(`${corpusFile('unknown-config-key.yaml')}: jobs[0].onDuplicat: unknown key "onDuplicat"; did you mean "onDuplicate"? (line 11)`);
    expect(loggedCodes(result)).toEqual(['CONFIG_INVALID']);
  });

  it('the environment variable of the token not set: CONFIG_INVALID, exit 2, naming the variable, the YAML path and line, and how to set it', async () => {
    const result = await run('missing-token-env.yaml');

    expectStoppedBeforeAnyRow(result);
    expect(errorText(result)).toContain(
      `${corpusFile('missing-token-env.yaml')}: connections.main.token: environment variable CONTACT_SYNC_CORPUS_TOKEN is not set ` +
        '(${CONTACT_SYNC_CORPUS_TOKEN} has no default); set CONTACT_SYNC_CORPUS_TOKEN in the environment, or name a file holding the token with tokenFile: (line 5)',
    );
    expect(loggedCodes(result)).toEqual(['CONFIG_INVALID']);
  });

  it('an http:// base URL to a host that is not loopback: CONFIG_INVALID, exit 2, naming the YAML path and line, with https:// or allowInsecure as the fix', async () => {
    const result = await run('http-base-url-not-loopback.yaml');

    expectStoppedBeforeAnyRow(result);
    expect(errorText(result)).toContain(
      `${corpusFile('http-base-url-not-loopback.yaml')}: connections.main.baseUrl: http://crm-proxy.example.com would send the token in clear text over the network; ` +
        'use https://, or set allowInsecure: true on a network you trust (line 4)',
    );
    expect(loggedCodes(result)).toEqual(['CONFIG_INVALID']);
  });

  it('the same http:// base URL with allowInsecure: true loads (validate: every row valid, exit 0)', async () => {
    const ws = workspace();
    const result = await ws.run(['validate', corpusFile('http-base-url-allow-insecure.yaml')], { env: corpusEnv(emulator()) });

    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('import: 3 rows, 3 valid, 0 invalid');
  });

  it('a token with a space inside (a copy-paste slip): CONFIG_INVALID, exit 2, naming connections.main.token and the fix, without echoing it', async () => {
    const result = await run(CORPUS_JOBS, corpusEnv(emulator(), 'Tk-first-half Tk-second-half'), ['--job', 'valid-customers']);

    expectStoppedBeforeAnyRow(result);
    expect(errorText(result)).toContain(`${CORPUS_JOBS}: connections.main.token:`);
    expect(result.stderr).not.toContain('Tk-first-half');
    expect(loggedCodes(result)).toEqual(['CONFIG_INVALID']);
  });
});
