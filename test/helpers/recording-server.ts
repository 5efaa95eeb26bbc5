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
  /** The request's headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
}

/** What `answer` makes the server send back instead of the next status and `OK`. */
export interface RecordedAnswer {
  status?: number;
  /** Sent as JSON unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RecordingServer {
  /** The server's origin followed by `path`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function recordingServer(
  options: { path?: string; statuses?: number[]; headers?: Record<string, string>; answer?: (request: RecordedRequest) => RecordedAnswer } = {},
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const statuses = [...(options.statuses ?? [])];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const recorded = { method: request.method ?? '', path: request.url ?? '', body, headers: request.headers };
      requests.push(recorded);
      const answer = options.answer?.(recorded);
      if (answer === undefined) {
        response.writeHead(statuses.shift() ?? 200, options.headers ?? {});
        response.end('OK');
        return;
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(text);
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
