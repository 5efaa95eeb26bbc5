/**
 * An HTTP server on 127.0.0.1, port 0, standing in for a sink the job tells (a webhook, a cron
 * monitor): it keeps every request it is sent, in order, and answers each with the next status of
 * `statuses` (then 200). Closed by the test.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The path and query. */
  path: string;
  /** The body as text. */
  body: string;
}

export interface RecordingServer {
  /** The server's origin followed by `path`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function recordingServer(options: { path?: string; statuses?: number[]; headers?: Record<string, string> } = {}): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const statuses = [...(options.statuses ?? [])];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', body });
      response.writeHead(statuses.shift() ?? 200, options.headers ?? {});
      response.end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.path ?? '/'}`,
    requests,
    close: () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
