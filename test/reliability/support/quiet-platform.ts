/**
 * After a client was killed, requests it sent may still be on their way through the emulator's
 * latency, and the platform commits them after the client is gone (a real platform would too). A
 * re-run must start after they landed, or it races the dead run's creates (no client can avoid
 * that race). Quiet means: no request counted and no contact stored for `quietMs`.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { TOKEN } from '../../helpers/cli-harness.js';

export async function platformQuiet(emulator: RunningEmulator, quietMs: number, timeoutMs = 10_000): Promise<void> {
  const signature = (): string => `${emulator.counters(TOKEN).total.received}/${emulator.contacts(TOKEN).length}`;
  const deadline = Date.now() + timeoutMs;
  let last = signature();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`the emulator did not go quiet for ${quietMs} ms within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = signature();
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
}
