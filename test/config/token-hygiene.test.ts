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

describe('two connections with one base URL and one token', () => {
  it('share one budget: one pacing alone beside one sharing through Redis is a config error at its path, the token not shown', async () => {
    const path = jobsFile(
      ['    token: ${CHANNEL_TOKEN}', '    rateLimits: { redis: "redis://user:pw@127.0.0.1:6379" }', '  second:', '    baseUrl: https://api.example.com/api/', '    token: ${CHANNEL_TOKEN}'].join('\n'),
    );
    const error = await configError(path, { CHANNEL_TOKEN: TOKEN });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        'connections.second',
        'calls https://api.example.com/api with the same token as connections.main, so both spend one budget, but connections.main shares it through Redis at redis://127.0.0.1:6379 and this one paces itself alone; give both the same rateLimits.redis (or neither)',
      ],
    ]);
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain('pw@');
  });

  it('with the same rateLimits.redis, or different tokens, load', async () => {
    const redis = '    rateLimits: { redis: "redis://127.0.0.1:6379" }';
    const same = jobsFile(['    token: ${CHANNEL_TOKEN}', redis, '  second:', '    baseUrl: https://api.example.com/api', '    token: ${CHANNEL_TOKEN}', redis].join('\n'));
    await expect(loadJobsFile(same, { env: { CHANNEL_TOKEN: TOKEN } })).resolves.toBeDefined();
    const other = jobsFile(['    token: ${CHANNEL_TOKEN}', redis, '  second:', '    baseUrl: https://api.example.com/api', '    token: ${OTHER_TOKEN}'].join('\n'));
    await expect(loadJobsFile(other, { env: { CHANNEL_TOKEN: TOKEN, OTHER_TOKEN: 'another-token-77' } })).resolves.toBeDefined();
  });

  it("on API v2 the budget is the organisation's, whatever the tokens: two connections of one organisation are held to one rateLimits.redis", async () => {
    const v2 = (second: string): string => {
      const dir = tempDir('contact-sync-token-');
      writeFileSync(join(dir, 'c.csv'), 'id\n1\n');
      const path = join(dir, 'jobs.yaml');
      const connection = (name: string, extra: string[]): string[] => [`  ${name}:`, '    api: v2', '    baseUrl: https://api.example.com/v2', ...extra];
      writeFileSync(
        path,
        [
          'connections:',
          ...connection('main', ['    organisation: acme', '    token: ${CHANNEL_TOKEN}', '    rateLimits: { redis: "redis://127.0.0.1:6379" }']),
          ...connection('second', [second, '    token: ${OTHER_TOKEN}']),
          'jobs:',
          '  - name: j',
          '    connection: main',
          '    input: c.csv',
          '    key: { column: id, field: customerid }',
          '',
        ].join('\n'),
      );
      return path;
    };
    const env = { CHANNEL_TOKEN: TOKEN, OTHER_TOKEN: 'another-token-77' };
    const error = await configError(v2('    organisation: acme'), env);
    expect(error.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        'connections.second',
        'is of organisation acme at api.example.com (API v2) as is connections.main, so both spend one budget, but connections.main shares it through Redis at redis://127.0.0.1:6379 and this one paces itself alone; give both the same rateLimits.redis (or neither)',
      ],
    ]);
    expect(error.message).not.toContain(TOKEN);
    await expect(loadJobsFile(v2('    organisation: other'), { env })).resolves.toBeDefined();
  });
});
