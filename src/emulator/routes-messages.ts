/**
 * Operations 7 to 9: one path, one message per call. A send records the message and may cancel
 * an active survey (only with `forceCancelSurvey: true`); it changes nothing else of the contact.
 */
import type { FastifyInstance } from 'fastify';
import { SEND_PATH } from './api-paths.js';
import { channelHandler } from './channel-request.js';
import type { ClosingSignal } from './channel-request.js';
import { contactIdFromPath } from './contact-path-id.js';
import type { EmulatorState } from './emulator-state.js';
import { StatusAnswer, messageSentEnvelope, templateSentEnvelope } from './envelopes.js';
import { readSendRequest } from './message-rules.js';
import { parseJsonBody } from './request-body.js';

export function registerMessageRoutes(app: FastifyInstance, state: EmulatorState, closing: ClosingSignal): void {
  app.post(
    SEND_PATH,
    channelHandler(state, closing, {
      operation: 'sendMessage',
      group: 'messages',
      run: ({ channel, params, rawBody }) => {
        const contactId = contactIdFromPath(channel, 'sendMessage', params.contactId ?? '');
        const send = readSendRequest(parseJsonBody(rawBody));
        const cancelledSurvey = send.forceCancelSurvey === true && channel.contacts.hasActiveSurvey(contactId);
        if (cancelledSurvey) channel.contacts.setSurvey(contactId, false);
        channel.messages.push({ contactId, ...send, cancelledSurvey, sentAt: state.now() });
        const [element] = send.body;
        // A template is answered 201 with a lowercase status and an object (a reseller's page).
        if (element?.type === 'whatsapp_template') return new StatusAnswer(201, templateSentEnvelope(element.template));
        return messageSentEnvelope();
      },
    }),
  );
}
