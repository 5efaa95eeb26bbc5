/**
 * A pass-through proxy in front of the emulator that holds one answer: the answer to the Nth
 * create the platform committed. While it is held the test acts on the run (kills it, fills its
 * state store's disk, locks its state store), then the answer is passed on or dropped. So the act
 * happens at a chosen point, deterministically: a contact the platform created and the run has not
 * heard of yet. Listens on 127.0.0.1 port 0.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forwardHeaders } from '../../helpers/recording-proxy.js';

/** What becomes of the held answer: passed on to the run, or its connection dropped. */
export type HeldAnswer = 'pass' | 'drop';

export interface HeldCreateProxy {
  /** Base URL to put in jobs.yaml: the proxy's origin plus the target's path (`/api`). */
  readonly url: string;
  /** Resolves once the act ran and the held answer was passed on or dropped. */
  readonly released: Promise<void>;
  close(): Promise<void>;
}

/** The create path of the API (`POST /api/v1/contact`), as the proxy receives it. */
const CREATE = /^\/api\/v1\/contact\/?(\?.*)?$/;

/** Proxies to `targetUrl` (an emulator's `url`); runs `act` while the `atCreate`th committed create's answer is held. */
export async function startHeldCreateProxy(targetUrl: string, atCreate: number, act: () => HeldAnswer | Promise<HeldAnswer>): Promise<HeldCreateProxy> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true });
  let creates = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const upstream = request(
        { agent, host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: forwardHeaders(incoming.headers, target.host) },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            const pass = (): void => {
              outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
              outgoing.end(Buffer.concat(body));
            };
            const committed = incoming.method === 'POST' && CREATE.test(incoming.url ?? '') && (answer.statusCode ?? 0) < 300;
            if (!committed || ++creates !== atCreate) return pass();
            void Promise.resolve()
              .then(act)
              .then((held) => (held === 'pass' ? pass() : outgoing.destroy()))
              .finally(release);
          });
        },
      );
      upstream.on('error', () => outgoing.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    released,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
