import { stripUrlAuth, urlOriginOnly } from '../../src/api/strip-url-auth.js';
import { tokenRedactor } from '../../src/api/redact-token.js';

describe('stripUrlAuth: every credential form of a URL is gone before it is shown (issue 42)', () => {
  it.each([
    ['redis://:s3cr3tpw@redis:6379/0', 'redis://redis:6379/0'],
    ['redis://user:s3cr3tpw@redis:6379', 'redis://redis:6379'],
    ['redis://redis:6379/0?password=s3cr3tpw', 'redis://redis:6379/0?password='],
    ['redis://redis:6379?db=2&Password=s3cr3tpw&family=6', 'redis://redis:6379?db=2&Password=&family=6'],
    ['https://gw.example/push?token=s3cr3tpw', 'https://gw.example/push?token='],
    ['https://gw.example/push?access_token=s3cr3tpw&api_key=s3cr3tpw&key=s3cr3tpw', 'https://gw.example/push?access_token=&api_key=&key='],
    ['https://gw.example/push?page=2', 'https://gw.example/push?page=2'],
    ['http://127.0.0.1:6379', 'http://127.0.0.1:6379'],
    // Free text holding URLs: the userinfo and the secret parameters' values, wherever they stand.
    ['connect ECONNREFUSED redis://:s3cr3tpw@redis:6379 (was redis://redis:6379?password=s3cr3tpw&db=1)', 'connect ECONNREFUSED redis://redis:6379 (was redis://redis:6379?password=&db=1)'],
  ])('%s -> %s', (url, shown) => {
    expect(stripUrlAuth(url)).toBe(shown);
    expect(stripUrlAuth(url)).not.toContain('s3cr3tpw');
  });

  it('urlOriginOnly shows no query at all', () => {
    expect(urlOriginOnly('redis://redis:6379/0?password=s3cr3tpw')).toBe('redis://redis:6379/...');
  });
});

describe('tokenRedactor: an echo of part of the token, in any case, is cut too (issue 42)', () => {
  const token = 'Abc123DefGhi456JklMno789';
  const redact = tokenRedactor(token);
  it.each([
    ['the whole token', `bad token ${token}.`, 'bad token [redacted].'],
    ['lower-cased', `bad token ${token.toLowerCase()}.`, 'bad token [redacted].'],
    ['upper-cased and truncated', `token ${token.slice(0, 12).toUpperCase()}... rejected`, 'token [redacted]... rejected'],
    ['its middle, 8 characters', `saw "${token.slice(5, 13)}"`, 'saw "[redacted]"'],
    ['two pieces', `${token.slice(0, 9)} and ${token.slice(-9)}`, '[redacted] and [redacted]'],
    ['7 characters: not a secret worth the price', `saw ${token.slice(0, 7)}`, `saw ${token.slice(0, 7)}`],
    ['nothing of it', '{"data":{"id":"12"}}', '{"data":{"id":"12"}}'],
  ])('%s', (_what, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('in a JSON body, the body stays JSON', () => {
    const redacted = redact(`{"status":"error","message":"unknown token ${token.slice(2).toLowerCase()}"}`);
    expect(JSON.parse(redacted)).toEqual({ status: 'error', message: 'unknown token [redacted]' });
  });
});
