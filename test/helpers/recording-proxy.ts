/**
 * A pass-through HTTP proxy in front of the emulator that keeps every request's method, path and
 * JSON body, so a test can assert what the job sent (only the changed fields, only the missing
 * tags), not only how many calls it made. Starts on 127.0.0.1 port 0.
 */
import { Agent, createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as received (e.g. `/api/v1/contact/123`). */
  path: string;
  /** The parsed JSON body; undefined when there was none. */
  body: unknown;
}

export interface RecordingProxy {
  /** Base URL to put in jobs.yaml: the proxy's origin plus the target's path (`/api`). */
  url: string;
  readonly requests: RecordedRequest[];
  clear(): void;
  close(): Promise<void>;
}

/**
 * Proxies to `targetUrl` (an emulator's `url`, e.g. `http://127.0.0.1:41234/api`). `beforeForward`
 * is told each request's path and query before it goes on: a test changes the platform there
 * (contacts added while a list is paged through).
 */
export async function startRecordingProxy(
  targetUrl: string,
  options: {
    beforeForward?: (path: string) => void;
    /**
     * Told each request's method and path: `true` forwards the request, waits for the target's
     * whole answer and then drops the connection instead of passing the answer on (an answer lost
     * after the platform did the work).
     */
    dropAnswer?: (method: string, path: string) => boolean;
    /**
     * Told each request's method and path: `true` forwards the request, waits for the target's
     * whole answer and then keeps it: the client waits on until it is killed or the proxy closed
     * (a process killed while its request was on the wire, after the platform did the work).
     */
    holdAnswer?: (method: string, path: string) => boolean;
    /**
     * Told each request's method, path and body text: what the target gets instead (a proxy that
     * rewrites a search's filter, so the answer names another key's contact). Recorded as received.
     */
    rewrite?: (method: string, path: string, body: string) => { path: string; body: string };
    /** The headers of each answer as passed on (a hostile platform's, say). @default as the target sent them */
    answerHeaders?: (headers: IncomingHttpHeaders) => IncomingHttpHeaders;
  } = {},
): Promise<RecordingProxy> {
  const target = new URL(targetUrl);
  const agent = new Agent({ keepAlive: true });
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', body: text === '' ? undefined : (JSON.parse(text) as unknown) });
      options.beforeForward?.(incoming.url ?? '/');
      const sent = options.rewrite?.(incoming.method ?? 'GET', incoming.url ?? '/', text) ?? { path: incoming.url ?? '/', body: text };
      const headers = forwardHeaders(incoming.headers, target.host);
      if (sent.body !== text) headers['content-length'] = String(Buffer.byteLength(sent.body));
      const upstream = request(
        { agent, host: target.hostname, port: target.port, method: incoming.method, path: sent.path, headers },
        (answer) => {
          if (options.holdAnswer?.(incoming.method ?? 'GET', incoming.url ?? '/') === true) {
            answer.resume();
            return;
          }
          if (options.dropAnswer?.(incoming.method ?? 'GET', incoming.url ?? '/') === true) {
            answer.resume();
            answer.on('end', () => outgoing.destroy());
            return;
          }
          outgoing.writeHead(answer.statusCode ?? 502, options.answerHeaders?.(answer.headers) ?? answer.headers);
          answer.pipe(outgoing);
        },
      );
      // The emulator dropped the connection (a fault): drop ours too, as the platform would.
      upstream.on('error', () => outgoing.destroy());
      upstream.end(sent.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    requests,
    clear: () => void requests.splice(0),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** A request's headers as a proxy sends them on: to `host`, without its own connection header. */
export function forwardHeaders(headers: IncomingHttpHeaders, host: string): IncomingHttpHeaders {
  const forwarded: IncomingHttpHeaders = { ...headers, host };
  delete forwarded.connection;
  return forwarded;
}
