/**
 * The path every v2 request takes, in v1's order (channel-request.ts): authenticate with a
 * workspace token (401), count, draw the injected fault, wait the inbound jitter, check the
 * organisation's window of the endpoint (429 with `Retry-After`), wait the latency, run the
 * operation, answer. Every answer past authentication carries `X-RateLimit-Limit` and
 * `X-RateLimit-Remaining` when v2's limits are on (spec/api-v2-notes.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAINTENANCE_PAGE, bearerToken, dropConnection, hang, waitLatency, type ClosingSignal } from '../channel-request.js';
import type { EmulatorState } from '../emulator-state.js';
import { retryAfterSeconds, type SlidingWindow } from '../sliding-window.js';
import {
  V2Refusal,
  V2_INVALID_TOKEN_MESSAGE,
  V2_SERVER_ERROR_MESSAGE,
  V2_TOO_MANY_REQUESTS_MESSAGE,
  v2Error,
} from './v2-errors.js';
import type { V2Endpoint } from './v2-paths.js';
import { V2_ROOT } from './v2-paths.js';
import type { Workspace } from './workspace.js';

/** What a v2 operation sees of a request. */
export interface V2OperationRequest {
  workspace: Workspace;
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, unknown>>;
  /** Raw body text; parse it with `parseV2Body` so a bad body is v2's 400. */
  rawBody: unknown;
  /** `http://HOST/v2`, for the absolute URLs of pages. */
  root: string;
}

export interface V2Operation {
  endpoint: V2Endpoint;
  /** Does the work and returns the 200 body; throws `V2Refusal` to refuse. */
  run(request: V2OperationRequest): unknown;
}

export function v2Handler(state: EmulatorState, closing: ClosingSignal, operation: V2Operation) {
  const { name, faultOperation } = operation.endpoint;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { workspace } = state;
    if (!workspace.hasToken(bearerToken(request.headers.authorization))) {
      await reply.code(401).send(v2Error(401, V2_INVALID_TOKEN_MESSAGE));
      return;
    }
    const { counters } = workspace;
    counters.received(name);
    const { fault, inboundMs, latencyMs } = state.faults.decide(faultOperation, 'v2');
    if (!(await waitLatency(inboundMs, closing, request, reply))) return;
    const arrivalMs = state.now();
    const window = workspace.window(name);

    if (fault !== undefined && fault !== 'commitThenDrop' && fault !== 'sendHtmlBody') {
      counters.faulted(name);
      if (!(await waitLatency(latencyMs, closing, request, reply))) return;
      void reply.headers(limitHeaders(window, arrivalMs));
      if (fault === 'serverError') await reply.code(500).send(v2Error(500, V2_SERVER_ERROR_MESSAGE));
      else if (fault === 'rateLimited') {
        counters.rateLimited(name);
        const retryAfter = state.faults.faults.retryAfterSeconds ?? 1;
        await reply.code(429).header('retry-after', String(retryAfter)).send(v2Error(429, V2_TOO_MANY_REQUESTS_MESSAGE));
      } else if (fault === 'hang') await hang(closing, request, reply);
      else if (fault === 'echoTokenEscaped') {
        const token = bearerToken(request.headers.authorization) ?? '';
        const text = JSON.stringify(v2Error(403, `Temporary error: the request with token ${token} was refused`)).replace(/\//g, '\\/');
        await reply.code(403).type('application/json').send(text);
      } else dropConnection(request, reply, fault === 'resetConnection');
      return;
    }

    counters.arrived(name, arrivalMs);
    const admission = window?.tryAdmit(arrivalMs) ?? { accepted: true };
    void reply.headers(limitHeaders(window, arrivalMs));
    if (!admission.accepted) {
      counters.rateLimited(name);
      if (!(await waitLatency(latencyMs, closing, request, reply))) return;
      await reply
        .code(429)
        .header('retry-after', String(retryAfterSeconds(admission.retryAfterMs)))
        .send(v2Error(429, V2_TOO_MANY_REQUESTS_MESSAGE));
      return;
    }

    if (!(await waitLatency(latencyMs, closing, request, reply))) return;
    let body: unknown;
    try {
      body = operation.run({
        workspace,
        params: request.params as Record<string, string | undefined>,
        query: request.query as Record<string, unknown>,
        rawBody: request.body,
        root: `http://${request.headers.host ?? 'localhost'}${V2_ROOT}`,
      });
    } catch (error) {
      if (!(error instanceof V2Refusal)) throw error;
      await reply.code(error.statusCode).send(v2Error(error.statusCode, error.message));
      return;
    }
    if (fault === 'commitThenDrop') {
      counters.faulted(name);
      dropConnection(request, reply, false);
      return;
    }
    if (fault === 'sendHtmlBody') {
      counters.faulted(name);
      await reply.code(200).type('text/html').send(MAINTENANCE_PAGE);
      return;
    }
    await reply.code(200).send(body);
  };
}

/** The endpoint's limit and what is left of it at `arrivalMs`; none when v2's limits are off. */
function limitHeaders(window: SlidingWindow | undefined, arrivalMs: number): Record<string, string> {
  if (window === undefined) return {};
  return { 'x-ratelimit-limit': String(window.limit), 'x-ratelimit-remaining': String(window.remaining(arrivalMs)) };
}
