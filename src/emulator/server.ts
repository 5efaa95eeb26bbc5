/**
 * The fastify application: raw-text bodies, the channel API, 405 for other methods on known
 * paths, the admin API, and error bodies in the platform's envelope.
 */
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance } from 'fastify';
import { HTTP_METHODS, KNOWN_PATHS } from './api-paths.js';
import type { ClosingSignal } from './channel-request.js';
import type { EmulatorState } from './emulator-state.js';
import { METHOD_NOT_ALLOWED_MESSAGE, SERVER_ERROR_MESSAGE, errorEnvelope } from './envelopes.js';
import { registerAdminRoutes } from './routes-admin.js';
import { registerContactRoutes } from './routes-contacts.js';
import { registerMessageRoutes } from './routes-messages.js';
import type { ResolvedOptions } from './validate-options.js';
import { V2_SERVER_ERROR_MESSAGE, v2Error } from './v2/v2-errors.js';
import { V2_ROOT } from './v2/v2-paths.js';
import { registerV2Routes } from './v2/routes.js';

export function buildServer(state: EmulatorState, options: ResolvedOptions, closing: ClosingSignal): FastifyInstance {
  const app = Fastify({
    ...(typeof options.logger === 'boolean' ? { logger: options.logger } : { loggerInstance: options.logger }),
    // close() must not wait for clients that keep sockets alive.
    forceCloseConnections: true,
    // `POST /v1/contact/` is `POST /v1/contact`: two independent clients of the live API create
    // contacts with the slash, and the live service's paging output is a framework's that ignores
    // it (issue 28). So `GET /v1/contact/` is the collection's 405, not a lookup of contact "".
    routerOptions: { ignoreTrailingSlash: true },
  });

  // Bodies stay text, whatever the content type, so that an unreadable body is refused after
  // authentication and the rate limit, as the platform's 403, not as fastify's 400 or 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  registerContactRoutes(app, state, closing);
  registerMessageRoutes(app, state, closing);
  for (const { path, methods } of KNOWN_PATHS) {
    const others = HTTP_METHODS.filter((method) => !methods.includes(method));
    app.route({
      method: others,
      url: path,
      handler: async (_request, reply) => {
        await reply.code(405).header('allow', methods.join(', ')).send(errorEnvelope(METHOD_NOT_ALLOWED_MESSAGE));
      },
    });
  }
  registerV2Routes(app, state, closing);
  registerAdminRoutes(app, state);

  // Each surface answers in its own error shape: v2's `{code, message}` under /v2.
  const isV2 = (url: string): boolean => url === V2_ROOT || url.startsWith(`${V2_ROOT}/`);
  app.setNotFoundHandler(async (request, reply) => {
    const message = `no route ${request.method} ${request.url.split('?')[0] ?? ''}`;
    await reply.code(404).send(isV2(request.url) ? v2Error(404, message) : errorEnvelope(message));
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'emulator error');
    if (isV2(request.url)) await reply.code(status).send(v2Error(status, status >= 500 ? V2_SERVER_ERROR_MESSAGE : error.message));
    else await reply.code(status).send(errorEnvelope(status >= 500 ? SERVER_ERROR_MESSAGE : error.message));
  });
  return app;
}
