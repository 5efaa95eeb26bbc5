/**
 * One HTTP request to a sink the job tells (a webhook, a cron monitor, a Pushgateway), bounded in
 * time and in what it reads (issue 42): the whole exchange, answer included, ends by
 * `timeoutMs` or when `signal` aborts, and at most `ANSWER_READ_BYTES` of the answer are read (for
 * the warning of a refused notice), then the stream is destroyed. A 2xx is taken whatever its body:
 * none of it is read. Redirects are never followed, and got retries nothing (the caller's attempts
 * do). A sink that trickles, or answers gigabytes, costs at most its deadline and a few KB.
 */
import got from 'got';

/** How much of an answer is read at most: enough for the first line of an error page. */
export const ANSWER_READ_BYTES = 4_096;

export interface SinkRequest {
  method: 'GET' | 'POST';
  url: string;
  /** The body to send (POST). */
  body?: string;
  headers?: Record<string, string>;
}

/** What the sink answered: its status, where a redirect pointed, and the head of a non-2xx body. */
export interface SinkAnswer {
  status: number;
  location: string | undefined;
  /** At most `ANSWER_READ_BYTES` of the body, as text; empty for a 2xx (not read). */
  head: string;
}

/**
 * Sends `request`; resolves with the answer once its status is known (and, for a non-2xx, once
 * the head of its body was read or the body ended); rejects with got's error when no answer came
 * in time (`ETIMEDOUT`), the connection failed, or `signal` aborted.
 */
export function sendToSink(request: SinkRequest, timeoutMs: number, signal?: AbortSignal): Promise<SinkAnswer> {
  return new Promise<SinkAnswer>((resolve, reject) => {
    const stream = got.stream(request.url, {
      method: request.method,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(request.headers === undefined ? {} : { headers: request.headers }),
      retry: { limit: 0 },
      timeout: { request: Math.max(1, Math.floor(timeoutMs)) },
      followRedirect: false,
      throwHttpErrors: false,
      decompress: false,
      ...(signal === undefined ? {} : { signal }),
    });
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      finish();
      // Whatever is left of the answer is not read: the connection is closed.
      stream.destroy();
    };
    const chunks: Buffer[] = [];
    let answered: { status: number; location: string | undefined } | undefined;
    // An answer whose status came is that answer, even when its body stops short (or trickles past the deadline).
    const done = (): void => settle(() => resolve({ ...answered!, head: Buffer.concat(chunks).subarray(0, ANSWER_READ_BYTES).toString('utf8') }));
    stream.on('error', (error: Error) => (answered === undefined ? settle(() => reject(error)) : done()));
    stream.once('response', (response: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
      const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
      answered = { status: response.statusCode, location };
      if (answered.status >= 200 && answered.status < 300) {
        done();
        return;
      }
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= ANSWER_READ_BYTES) done();
      });
      stream.once('end', done);
    });
  });
}
