/**
 * A proxy in front of the emulator that tries to lure the client to another origin, as a
 * misconfigured or hostile server could: every search answer's `links` (and `meta.path`) point
 * at `elsewhere`, and every update is answered with a redirect there instead of being passed on.
 * A second server, `elsewhere`, records whatever reaches it. Both listen on 127.0.0.1 port 0
 * (another port is another origin).
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReachedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface LuringProxy {
  /** Base URL for jobs.yaml: the proxy's origin plus the emulator's `/api`. */
  url: string;
  /** The origin the proxy lures to. */
  elsewhere: string;
  /** Requests that reached `elsewhere`. */
  readonly reachedElsewhere: ReachedRequest[];
  /** Paths (with query) of the requests the proxy received. */
  readonly received: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function shut(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** `targetUrl` is an emulator's `url` (e.g. `http://127.0.0.1:41234/api`). */
export async function startLuringProxy(targetUrl: string): Promise<LuringProxy> {
  const target = new URL(targetUrl);
  const reachedElsewhere: ReachedRequest[] = [];
  const received: string[] = [];

  const elsewhereServer = createServer((incoming, outgoing) => {
    reachedElsewhere.push({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', authorization: incoming.headers.authorization });
    outgoing.writeHead(200, { 'content-type': 'application/json' });
    outgoing.end('{"data":{"id":"1"}}');
  });
  const elsewhere = await listen(elsewhereServer);

  const proxy = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    received.push(path);
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      if (incoming.method === 'PUT') {
        outgoing.writeHead(307, { location: `${elsewhere}${path}` });
        outgoing.end();
        return;
      }
      const upstream = request(
        { host: target.hostname, port: target.port, method: incoming.method, path, headers: forwarded(incoming.headers, target.host) },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            let text = Buffer.concat(body).toString('utf8');
            if (path.includes('/by_custom_field')) text = lure(text, elsewhere);
            const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) };
            outgoing.writeHead(answer.statusCode ?? 502, headers);
            outgoing.end(text);
          });
        },
      );
      upstream.on('error', () => outgoing.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  const origin = await listen(proxy);

  return {
    url: `${origin}${target.pathname}`,
    elsewhere,
    reachedElsewhere,
    received,
    close: async () => {
      await shut(proxy);
      await shut(elsewhereServer);
    },
  };
}

/** Points every link of a search page (and meta.path) at `elsewhere`, keeping path and query. */
function lure(text: string, elsewhere: string): string {
  const page = JSON.parse(text) as { links?: Record<string, string | null>; meta?: { path?: string } };
  const moved = (link: string | null | undefined): string | null => {
    if (typeof link !== 'string') return null;
    const url = new URL(link);
    return `${elsewhere}${url.pathname}${url.search}`;
  };
  if (page.links !== undefined) for (const name of Object.keys(page.links)) page.links[name] = moved(page.links[name]);
  if (page.meta?.path !== undefined) page.meta.path = moved(page.meta.path) ?? page.meta.path;
  return JSON.stringify(page);
}

function forwarded(headers: IncomingHttpHeaders, host: string): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers, host };
  delete copy.connection;
  return copy;
}
