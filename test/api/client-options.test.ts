/** Constructor errors name the option and echo the bad value (never the token or credentials). */
import { ApiClient } from '../../src/api/v1/client.js';
import { unlimitedLimiters } from './support/test-client.js';

function build(overrides: Record<string, unknown>): ApiClient {
  return new ApiClient({ baseUrl: 'http://127.0.0.1:1/api', token: 't0ken', limiters: unlimitedLimiters(), ...overrides });
}

describe('ApiClient options', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a baseUrl that is not a URL', { baseUrl: 'app.example.com/api' }, /option `baseUrl` "app.example.com\/api" is not a URL; write the API root as an http\(s\) URL/],
    ['an ftp baseUrl', { baseUrl: 'ftp://h/api' }, /option `baseUrl` "ftp:\/\/h\/api" uses ftp; write the API root as an http\(s\) URL/],
    ['a baseUrl with a query', { baseUrl: 'https://h/api?x=1' }, /option `baseUrl` "https:\/\/h\/api\?x=1" has a query or fragment; write the API root only/],
    ['an unknown channelType', { channelType: 'telegram' }, /option `channelType`.*"generic" or "viber".*got "telegram"/],
    ['a zero timeoutMs', { timeoutMs: 0 }, /option `timeoutMs`.*milliseconds.*got 0 \(number\)/],
    ['a fractional maxPages', { maxPages: 1.5 }, /option `maxPages`.*got 1.5/],
    ['a negative retry.limit', { retry: { limit: -1 } }, /option `retry.limit`.*got -1/],
    ['a maxDelayMs below baseDelayMs', { retry: { baseDelayMs: 100, maxDelayMs: 10 } }, /option `retry.maxDelayMs`.*at least retry.baseDelayMs \(100\).*got 10/],
    ['no limiters', { limiters: undefined }, /option `limiters.contacts`.*Bottleneck/],
    ['an empty token', { token: '' }, /option `token`/],
  ])('refuses %s', (_name, overrides, message) => {
    expect(() => build(overrides)).toThrow(message);
  });

  it('refuses a baseUrl with credentials and shows it without them', () => {
    let message = '';
    try {
      build({ baseUrl: 'https://admin:hunter2@h/api' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/option `baseUrl` "https:\/\/h\/api" holds credentials; remove them from the URL/);
    expect(message).not.toContain('hunter2');
  });
});
