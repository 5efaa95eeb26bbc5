/**
 * A Pushgateway that trickles its answer after the job ended (issue 42 item 5): a SIGTERM then
 * ends the run (exit 143) once its sinks are cut, not at the signal's hard stop, with the
 * Pushgateway's warning; the job's lock is given back, so the next run is not refused (exit 75).
 * In-process (main() with an emitter for the signals) against the emulator and a server on port 0.
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, customersCsv, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

/** Takes each request, then sends a status line and one header byte every 20 ms until the client closes. */
async function tricklingGateway(): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => {
      requests += 1;
      socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
      const timer = setInterval(() => socket.destroyed || socket.write('a'), 20);
      socket.once('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a Pushgateway that trickles, and a SIGTERM', () => {
  let emulator: RunningEmulator | undefined;
  let gateway: Awaited<ReturnType<typeof tricklingGateway>> | undefined;
  afterEach(async () => {
    await emulator?.close();
    await gateway?.close();
    emulator = undefined;
    gateway = undefined;
  });

  it('ends the run with 143 and the Pushgateway\'s warning, never the hard stop; the lock is given back', async () => {
    emulator = await fastEmulator();
    gateway = await tricklingGateway();
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    const signals = new EventEmitter();

    const running = ws.run(['run', 'jobs.yaml', '--report-dir', 'reports', '--pushgateway', gateway.url], { signals });
    // The job has ended and its push is under way: bounded wait (a busy machine), then the signal.
    for (let waited = 0; gateway.requests() === 0 && waited < 20_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(gateway.requests()).toBe(1);
    signals.emit('SIGTERM');
    const run = await running;

    expect({ exitCode: run.exitCode, stopped: run.stderr.includes('stopping at once') }).toEqual({ exitCode: 143, stopped: false });
    expect(run.stderr).toContain(`the Pushgateway at ${gateway.url} did not take the metrics`);
    expect(ws.summary('import').rows.created).toBe(3);
    // The lock is free: the next run takes the job (nothing to do), not exit 75.
    const next = await ws.run(['run', 'jobs.yaml', '--report-dir', 'next']);
    expect(next.exitCode).toBe(0);
  }, 30_000);
});
