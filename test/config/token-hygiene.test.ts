import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadJobsFile } from '../../src/config/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const TOKEN = 'Zt0k3n-SECRET-value';

function jobsFile(connection: string): string {
  const dir = tempDir('contact-sync-token-');
  writeFileSync(join(dir, 'c.csv'), 'id\n1\n');
  const path = join(dir, 'jobs.yaml');
  writeFileSync(
    path,
    ['connections:', '  main:', '    baseUrl: https://api.example.com/api', connection, 'jobs:', '  - name: j', '    connection: main', '    input: c.csv', '    key: { column: id, field: customerid }', ''].join('\n'),
  );
  return path;
}

async function configError(path: string, env: Record<string, string>): Promise<ConfigError> {
  try {
    await loadJobsFile(path, { env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the file loaded');
}

describe('the token in config errors', () => {
  it('a token with a space or line break is a config error at its YAML path that does not echo it', async () => {
    const error = await configError(jobsFile('    token: ${CHANNEL_TOKEN}'), { CHANNEL_TOKEN: `${TOKEN} extra` });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((issue) => issue.path)).toEqual(['connections.main.token']);
    expect(error.message).toMatch(/holds a space, a line break .* copy it again from the channel settings/);
    expect(error.message).not.toContain(TOKEN);
  });

  it('a token variable put under another key is not echoed by that key\'s message', async () => {
    const error = await configError(jobsFile('    token: ${CHANNEL_TOKEN}\n    channelType: ${CHANNEL_TOKEN}'), { CHANNEL_TOKEN: TOKEN });
    expect(error.issues.map((issue) => issue.path)).toEqual(['connections.main.channelType']);
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toContain('[the token]');
  });
});
