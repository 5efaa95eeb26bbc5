/**
 * The admin API under `/__admin/`, for tests, demos and benchmarks. Every request needs
 * `x-admin-key`; a channel token never opens it. The channel is named by header
 * `x-channel-token` or by `?channel=<name>`, and may be left out when there is one channel.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ADMIN_ROOT } from './api-paths.js';
import type { Channel } from './channel.js';
import { readContactSeeds } from './contact-seeds.js';
import type { EmulatorState } from './emulator-state.js';
import { RefusedRequest, errorEnvelope, successEnvelope } from './envelopes.js';
import type { FaultOptions } from './options.js';
import { asObject, describe, parseJsonBody } from './request-body.js';
import { checkFaults } from './validate-options.js';
import { messageAnswer } from './v2/routes-messages.js';

export const ADMIN_KEY_HEADER = 'x-admin-key';
export const CHANNEL_TOKEN_HEADER = 'x-channel-token';

export function registerAdminRoutes(app: FastifyInstance, state: EmulatorState): void {
  void app.register(
    (admin, _options, done) => {
      // Returning the reply ends the request here (fastify's rule for async hooks).
      admin.addHook('onRequest', async (request, reply) => {
        if (!adminKeyMatches(request.headers[ADMIN_KEY_HEADER], state.adminKey)) {
          return reply.code(401).send(errorEnvelope(`the admin API needs the header ${ADMIN_KEY_HEADER} with the emulator's admin key`));
        }
      });
      admin.setErrorHandler(async (error, _request, reply) => {
        if (error instanceof RefusedRequest) await reply.code(error.statusCode).send(errorEnvelope(error.message));
        else throw error;
      });

      admin.get('/channels', () => ({
        data: state.channels().map((channel) => ({
          name: channel.name,
          type: channel.type,
          contacts: channel.contacts.size,
          messages: channel.messages.length,
        })),
      }));

      admin.post('/reset', (request) => {
        const channel = selectChannel(state, request, false);
        if (channel === undefined) state.resetAll();
        else channel.reset();
        return successEnvelope(channel === undefined ? 'Every channel reset' : `Channel ${channel.name} reset`);
      });

      admin.get('/contacts', (request) => ({ data: selectChannel(state, request, true).contacts.all() }));

      admin.post('/contacts', (request) => {
        const channel = selectChannel(state, request, true);
        const seeds = readContactSeeds(asAdminObject(request.body, '{"contacts": [...]}').contacts);
        const taken = seeds.find((seed) => seed.id !== undefined && channel.contacts.has(seed.id));
        if (taken !== undefined) {
          throw new RefusedRequest(409, `contact id "${String(taken.id)}" already exists in channel ${channel.name}; delete it first or leave the id out`);
        }
        return { data: seeds.map((seed) => channel.contacts.insert(seed)) };
      });

      admin.delete('/contacts/:contactId', (request) => {
        const channel = selectChannel(state, request, true);
        const id = (request.params as Record<string, string>).contactId ?? '';
        if (!channel.contacts.delete(id)) throw noContact(channel, id);
        return successEnvelope(`Contact ${id} deleted`);
      });

      admin.put('/contacts/:contactId/survey', (request) => {
        const channel = selectChannel(state, request, true);
        const id = (request.params as Record<string, string>).contactId ?? '';
        const active = asAdminObject(request.body, '{"active": true|false}').active;
        if (typeof active !== 'boolean') throw new RefusedRequest(400, `active must be true or false, got ${describe(active)}`);
        if (!channel.contacts.setSurvey(id, active)) throw noContact(channel, id);
        return successEnvelope(active ? `Survey active on contact ${id}` : `No survey on contact ${id}`);
      });

      admin.get('/surveys', (request) => ({ data: selectChannel(state, request, true).contacts.surveys() }));

      admin.get('/messages', (request) => {
        const channel = selectChannel(state, request, true);
        const contactId = (request.query as Record<string, unknown>).contactId;
        return { data: typeof contactId === 'string' ? channel.messagesTo(contactId) : channel.messages };
      });

      admin.get('/counters', (request) => ({ data: selectChannel(state, request, true).counters.snapshot() }));

      admin.post('/counters/reset', (request) => {
        const channel = selectChannel(state, request, false);
        for (const each of channel === undefined ? state.channels() : [channel]) each.counters.reset();
        if (channel === undefined) state.workspace.counters.reset();
        return successEnvelope('Counters reset');
      });

      // The v2 surface's workspace: one per emulator, so no channel is named.
      admin.get('/v2/counters', () => ({ data: state.workspace.counters.snapshot() }));

      admin.get('/v2/messages', (request) => {
        const { workspace } = state;
        const contactId = (request.query as Record<string, unknown>).contactId;
        const messages = workspace.messages.filter((message) => typeof contactId !== 'string' || message.contactId === contactId);
        return { data: messages.map((message) => messageAnswer(workspace, message)) };
      });

      admin.get('/faults', () => ({ data: state.faults.faults }));

      admin.put('/faults', (request) => {
        const body = asAdminObject(request.body, '{"faults": {...}, "seed"?: number}');
        const faults = (body.faults ?? {}) as FaultOptions;
        const problems = checkFaults(faults, 'faults');
        if (body.seed !== undefined && !Number.isSafeInteger(body.seed)) problems.push(`seed: ${JSON.stringify(body.seed)} is not an integer`);
        if (problems.length > 0) throw new RefusedRequest(400, problems.join('; '));
        state.faults.configure(faults, body.seed as number | undefined);
        return successEnvelope('Faults set');
      });

      done();
    },
    { prefix: ADMIN_ROOT },
  );
}

function adminKeyMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** With `required` false, no channel named means every channel (undefined). */
function selectChannel(state: EmulatorState, request: FastifyRequest, required: true): Channel;
function selectChannel(state: EmulatorState, request: FastifyRequest, required: false): Channel | undefined;
function selectChannel(state: EmulatorState, request: FastifyRequest, required: boolean): Channel | undefined {
  const token = request.headers[CHANNEL_TOKEN_HEADER];
  if (typeof token === 'string') {
    const channel = state.channelByToken(token);
    if (channel === undefined) throw new RefusedRequest(404, `no channel has the token given in ${CHANNEL_TOKEN_HEADER}`);
    return channel;
  }
  const name = (request.query as Record<string, unknown>).channel;
  if (typeof name === 'string') {
    const channel = state.channelByName(name);
    if (channel === undefined) {
      const names = state.channels().map((each) => each.name).join(', ');
      throw new RefusedRequest(404, `no channel is named "${name}"; the channels are: ${names}`);
    }
    return channel;
  }
  if (!required) return undefined;
  const [only, ...others] = state.channels();
  if (only !== undefined && others.length === 0) return only;
  throw new RefusedRequest(400, `name the channel with ?channel=NAME or the header ${CHANNEL_TOKEN_HEADER}`);
}

function asAdminObject(raw: unknown, shape: string): Record<string, unknown> {
  try {
    return asObject(parseJsonBody(raw), shape);
  } catch (error) {
    if (error instanceof RefusedRequest) throw new RefusedRequest(400, error.message);
    throw error;
  }
}

function noContact(channel: Channel, id: string): RefusedRequest {
  return new RefusedRequest(404, `no contact with id "${id}" in channel ${channel.name}`);
}
