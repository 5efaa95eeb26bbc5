/**
 * The path every channel API request takes, in this order: authenticate (401), count, draw the
 * injected fault, wait the injected inbound jitter (the way in), check the rate window at arrival
 * time (429), wait the injected latency, run
 * the operation, answer (or drop the socket after committing, for the commit-then-drop faults).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiOperation } from '../api/wire-types.js';
import type { ApiGroup } from '../limits.js';
import type { Channel } from './channel.js';
import type { EmulatorState } from './emulator-state.js';
import {
  INVALID_TOKEN_MESSAGE,
  RefusedRequest,
  SERVER_ERROR_MESSAGE,
  StatusAnswer,
  TOO_MANY_REQUESTS_MESSAGE,
  errorEnvelope,
} from './envelopes.js';
import { retryAfterSeconds } from './sliding-window.js';

/** What an operation sees of a request. */
export interface OperationRequest {
  channel: Channel;
  params: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, unknown>>;
  /** Raw body text; operations parse it with `parseJsonBody` so a bad body is a 403. */
  rawBody: unknown;
  /** `Host` header, for the absolute links of search pages. */
  host: string;
}

export interface ChannelOperation {
  operation: ApiOperation;
  group: ApiGroup;
  /** Does the work and returns the 200 body (or a `StatusAnswer`); throws `RefusedRequest` to refuse. */
  run(request: OperationRequest): unknown;
}

/** Aborted when the emulator closes, so pending latency waits end at once. */
export type ClosingSignal = AbortSignal;

export function channelHandler(state: EmulatorState, closing: ClosingSignal, operation: ChannelOperation) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const channel = authenticate(state, request.headers.authorization);
    if (channel === undefined) {
      await reply.code(401).send(errorEnvelope(INVALID_TOKEN_MESSAGE));
      return;
    }
    const { counters } = channel;
    counters.received(operation.operation);
    const { fault, inboundMs, latencyMs } = state.faults.decide(operation.operation);
    if (!(await waitLatency(inboundMs, closing, request, reply))) return;
    const arrivalMs = state.now();

    if (fault !== undefined && fault !== 'commitThenDrop' && fault !== 'sendHtmlBody') {
      counters.faulted(operation.operation);
      if (!(await waitLatency(latencyMs, closing, request, reply))) return;
      if (fault === 'serverError') await reply.code(500).send(errorEnvelope(SERVER_ERROR_MESSAGE));
      else if (fault === 'rateLimited') {
        counters.rateLimited(operation.operation);
        const retryAfter = state.faults.faults.retryAfterSeconds ?? 1;
        await reply.code(429).header('retry-after', String(retryAfter)).send(errorEnvelope(TOO_MANY_REQUESTS_MESSAGE));
      } else if (fault === 'hang') await hang(closing, request, reply);
      else if (fault === 'echoTokenEscaped') {
        const token = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
        // PHP's json_encode escapes every `/` as `\/`: the token is then not found by a plain search.
        const text = JSON.stringify(errorEnvelope(`Temporary error: the request with token ${token} was refused`)).replace(/\//g, '\\/');
        await reply.code(403).type('application/json').send(text);
      } else if (fault === 'sendErrorBody') {
        await reply.code(200).send(errorEnvelope(SEND_REFUSED_MESSAGE));
      } else dropConnection(request, reply, fault === 'resetConnection');
      return;
    }

    const window = channel.windows[operation.group];
    counters.arrived(operation.group, arrivalMs);
    const admission = window?.tryAdmit(arrivalMs) ?? { accepted: true };
    if (!admission.accepted) {
      counters.rateLimited(operation.operation);
      if (!(await waitLatency(latencyMs, closing, request, reply))) return;
      await reply
        .code(429)
        .header('retry-after', String(retryAfterSeconds(admission.retryAfterMs)))
        .send(errorEnvelope(TOO_MANY_REQUESTS_MESSAGE));
      return;
    }

    if (!(await waitLatency(latencyMs, closing, request, reply))) return;
    let body: unknown;
    try {
      body = operation.run({
        channel,
        params: request.params as Record<string, string | undefined>,
        query: request.query as Record<string, unknown>,
        rawBody: request.body,
        host: request.headers.host ?? 'localhost',
      });
    } catch (error) {
      if (!(error instanceof RefusedRequest)) throw error;
      await reply.code(error.statusCode).send(errorEnvelope(error.message));
      return;
    }
    if (fault === 'commitThenDrop') {
      counters.faulted(operation.operation);
      dropConnection(request, reply, false);
      return;
    }
    if (fault === 'sendHtmlBody') {
      counters.faulted(operation.operation);
      await reply.code(200).type('text/html').send(MAINTENANCE_PAGE);
      return;
    }
    if (body instanceof StatusAnswer) await reply.code(body.statusCode).send(body.body);
    else await reply.code(200).send(body);
  };
}

/** What a proxy in front of the platform answers during maintenance, with a 200. */
export const MAINTENANCE_PAGE = '<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We will be back soon</h1></body></html>';

/** A refusal the platform writes into a 200 answer of a send. */
export const SEND_REFUSED_MESSAGE = 'Message not sent: the contact has blocked this channel';

/** Answers nothing until the client closes the connection or the emulator closes. */
export async function hang(closing: ClosingSignal, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (closing.aborted) {
    dropConnection(request, reply, false);
    return;
  }
  await new Promise<void>((resolve) => {
    const done = (): void => {
      closing.removeEventListener('abort', done);
      request.raw.socket.off('close', done);
      resolve();
    };
    closing.addEventListener('abort', done, { once: true });
    request.raw.socket.once('close', done);
  });
  dropConnection(request, reply, false);
}

function authenticate(state: EmulatorState, authorization: string | undefined): Channel | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : state.channelByToken(token);
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/** False when the emulator closed meanwhile: the socket is then dropped, nothing more is done. */
export async function waitLatency(
  latencyMs: number,
  closing: ClosingSignal,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  if (latencyMs <= 0) return true;
  try {
    await sleep(latencyMs, undefined, { signal: closing });
    return true;
  } catch {
    dropConnection(request, reply, false);
    return false;
  }
}

export function dropConnection(request: FastifyRequest, reply: FastifyReply, reset: boolean): void {
  reply.hijack();
  const socket = request.raw.socket;
  if (reset) {
    try {
      socket.resetAndDestroy();
      return;
    } catch {
      // Not a TCP socket (or already closed): a plain close is the nearest fault.
    }
  }
  socket.destroy();
}
