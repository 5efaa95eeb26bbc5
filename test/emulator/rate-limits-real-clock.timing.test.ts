/**
 * The emulator's window on its default (real) clock: the other rate-limit tests drive an injected
 * clock. In the in-band timing project, and with a window of two seconds, so six requests land in
 * one window even on a busy machine.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { TOKEN, api } from './emulator-http.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const search = (target: RunningEmulator) => api(target, 'GET', '/v1/contact/by_custom_field?name=email&value=x', { token: TOKEN });

test('the window recovers on the real clock', async () => {
  emulator = await startEmulator({ rateLimits: { contacts: { limit: 5, periodMs: 2000 } } });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i += 1) statuses.push((await search(emulator)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  await sleep(2100);
  expect((await search(emulator)).status).toBe(200);
});
