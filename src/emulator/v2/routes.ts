/** The v2 surface under `/v2`: its endpoints, and 405 for another method on a known path. */
import type { FastifyInstance } from 'fastify';
import { HTTP_METHODS } from '../api-paths.js';
import type { ClosingSignal } from '../channel-request.js';
import type { EmulatorState } from '../emulator-state.js';
import { registerV2ContactRoutes } from './routes-contacts.js';
import { registerV2MessageRoutes } from './routes-messages.js';
import { V2_METHOD_NOT_ALLOWED_MESSAGE, v2Error } from './v2-errors.js';
import { V2_ENDPOINT_LIST } from './v2-paths.js';

export function registerV2Routes(app: FastifyInstance, state: EmulatorState, closing: ClosingSignal): void {
  registerV2ContactRoutes(app, state, closing);
  registerV2MessageRoutes(app, state, closing);
  const methodsByUrl = new Map<string, string[]>();
  for (const { url, method } of V2_ENDPOINT_LIST) methodsByUrl.set(url, [...(methodsByUrl.get(url) ?? []), method]);
  for (const [url, methods] of methodsByUrl) {
    app.route({
      method: HTTP_METHODS.filter((method) => !methods.includes(method)),
      url,
      handler: async (_request, reply) => {
        await reply.code(405).header('allow', methods.join(', ')).send(v2Error(405, V2_METHOD_NOT_ALLOWED_MESSAGE));
      },
    });
  }
}
