import { EmulatorOptionsError, parseTokenFlag, startEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

describe('startEmulator', () => {
  test('defaults to one generic demo channel on 127.0.0.1 and a free port, with the API under /api', async () => {
    const emulator = await startEmulator();
    try {
      expect(emulator.port).toBeGreaterThan(0);
      expect(emulator.origin).toBe(`http://127.0.0.1:${emulator.port}`);
      expect(emulator.url).toBe(`${emulator.origin}/api`);
      expect((await api(emulator, 'GET', '/v1/contact/by_custom_field?name=a&value=b', { token: 'demo-token' })).status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  test('close does not hang on kept-alive sockets, and may be called twice', async () => {
    const emulator = await startEmulator();
    await api(emulator, 'GET', '/v1/contact/1'); // fetch keeps the socket alive
    await emulator.close();
    await emulator.close();
    await expect(fetch(`${emulator.url}/v1/contact/1`)).rejects.toThrow();
  });

  test('refuses bad options, naming each and never echoing a token', async () => {
    const attempt = startEmulator({
      port: -1,
      channels: [{ token: 'secret-token-1' }, { token: 'secret-token-1' }],
      rateLimits: { contacts: { limit: 0, periodMs: 1000 } },
      faults: { serverError: 1.5 },
    });
    await expect(attempt).rejects.toThrow(EmulatorOptionsError);
    const error = (await attempt.catch((caught: unknown) => caught)) as EmulatorOptionsError;
    expect(error.problems).toEqual([
      expect.stringContaining('port:'),
      expect.stringContaining('channels[1].token: is the token of an earlier channel'),
      expect.stringContaining('rateLimits.contacts.limit'),
      expect.stringContaining('faults.serverError'),
    ]);
    expect(error.message).not.toContain('secret-token-1');
  });

  test('refuses an admin key equal to a channel token', async () => {
    await expect(startEmulator({ adminKey: TOKEN })).rejects.toThrow(/adminKey: equals a channel token/);
  });

  test('in-process helpers refuse an unknown token without echoing it', async () => {
    const emulator = await startEmulator();
    try {
      expect(() => emulator.contacts('hidden-value')).toThrow(/no channel has the given token/);
      expect(() => emulator.contacts('hidden-value')).not.toThrow(/hidden-value/);
      expect(() => emulator.loadContacts(TOKEN, [{ custom_fields: { a: 1 as unknown as string } }])).toThrow(/must be a string/);
      expect(() => emulator.setSurvey(TOKEN, '1', true)).toThrow(/no contact/);
    } finally {
      await emulator.close();
    }
  });
});

describe('parseTokenFlag', () => {
  test.each([
    ['abc', { token: 'abc', type: 'generic' }],
    ['abc:viber', { token: 'abc', type: 'viber' }],
    ['abc:generic', { token: 'abc', type: 'generic' }],
    ['a:b:viber', { token: 'a:b', type: 'viber' }],
  ])('reads %s', (flag, expected) => {
    expect(parseTokenFlag(flag)).toEqual(expected);
  });

  test.each(['', ':viber', 'secret:telegram'])('refuses %p without echoing the token', (flag) => {
    expect(() => parseTokenFlag(flag)).toThrow(/--token/);
    expect(() => parseTokenFlag(flag)).not.toThrow(/secret/);
  });
});
