/**
 * A raw node:http server on 127.0.0.1 port 0 for the cases the emulator does not produce
 * (redirects, foreign links, malformed bodies, silence). Records every request it receives.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and raw query, as sent on the wire. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpTestServer {
  /** `http://127.0.0.1:PORT/api`: the base URL a client is given. */
  url: string;
  origin: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Handler = (request: RecordedRequest, response: ServerResponse, raw: IncomingMessage) => void;

export async function startHttpTestServer(handler: Handler): Promise<HttpTestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((raw, response) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const request = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        headers: raw.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      handler(request, response, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/api`,
    origin,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** A port nothing listens on: a server is started on port 0, then closed. */
export async function closedPort(): Promise<number> {
  const server = await startHttpTestServer(() => undefined);
  await server.close();
  return server.port;
}
