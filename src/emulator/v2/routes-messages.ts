/**
 * v2's message endpoints (the SDK's src/clients/messaging.ts): a send answers `{messageId}`, and
 * the contact's messages are read back with their status, so a send whose answer was lost can be
 * settled by reading (spec/api-v2-notes.md). A message is `sent` at once: delivery is not emulated.
 */
import type { FastifyInstance } from 'fastify';
import type { ClosingSignal } from '../channel-request.js';
import type { EmulatorState } from '../emulator-state.js';
import { cursorPage, readPageRequest } from './cursor-page.js';
import { existing } from './routes-contacts.js';
import { parseV2Body } from './v2-body.js';
import { V2Refusal, badRequest } from './v2-errors.js';
import { readV2SendRequest, type V2Message } from './v2-message.js';
import { V2_ENDPOINTS } from './v2-paths.js';
import { v2Handler, type V2Operation } from './v2-request.js';
import type { Workspace } from './workspace.js';

/** A message as v2 reads it back: the SDK's `GetMessageResponse` (src/types/message.ts). */
export interface V2MessageAnswer {
  messageId: number;
  channelMessageId: string;
  contactId: number;
  channelId: number;
  traffic: 'outgoing';
  message: Record<string, unknown>;
  status: V2Message['status'];
  sender: { source: 'api' };
}

export function registerV2MessageRoutes(app: FastifyInstance, state: EmulatorState, closing: ClosingSignal): void {
  const route = (operation: V2Operation): void => {
    app.route({ method: operation.endpoint.method, url: operation.endpoint.url, handler: v2Handler(state, closing, operation) });
  };

  route({
    endpoint: V2_ENDPOINTS.sendMessage,
    run: ({ workspace, params, rawBody }) => {
      const contactId = existing(workspace, params.identifier);
      const send = readV2SendRequest(parseV2Body(rawBody));
      const channelId = send.channelId ?? workspace.lastChannelId(contactId);
      if (channelId === undefined) {
        throw badRequest('the contact has no last channel (no message was ever sent to it); name the channel with channelId');
      }
      if (channelId < 1 || channelId > workspace.channels.length) {
        throw badRequest(`channelId ${channelId} is not a channel of this workspace; its channels are 1 to ${workspace.channels.length}`);
      }
      const sentAt = state.now();
      const seconds = Math.floor(sentAt / 1000);
      const messageId = workspace.nextMessage();
      workspace.messages.push({
        messageId,
        contactId,
        channelId,
        message: send.message,
        status: [
          { value: 'pending', timestamp: seconds },
          { value: 'sent', timestamp: seconds },
        ],
        sentAt,
      });
      return { messageId };
    },
  });

  route({
    endpoint: V2_ENDPOINTS.listMessages,
    run: ({ workspace, params, query, root }) => {
      const contactId = existing(workspace, params.identifier);
      const page = readPageRequest(query);
      const messages = workspace.messages.filter((message) => message.contactId === contactId);
      const { items, pagination } = cursorPage(messages, (message) => message.messageId, page, `${root}/contact/${params.identifier ?? ''}/message/list`);
      return { items: items.map((message) => messageAnswer(workspace, message)), pagination };
    },
  });

  route({
    endpoint: V2_ENDPOINTS.getMessage,
    run: ({ workspace, params }) => {
      const contactId = existing(workspace, params.identifier);
      const text = params.messageId ?? '';
      const found = /^\d{1,16}$/.test(text) ? workspace.messages.find((message) => message.messageId === Number(text) && message.contactId === contactId) : undefined;
      if (found === undefined) throw new V2Refusal(404, `Message not found: contact "${params.identifier ?? ''}" has no message ${text}`);
      return messageAnswer(workspace, found);
    },
  });
}

export function messageAnswer(workspace: Workspace, message: V2Message): V2MessageAnswer {
  return {
    messageId: message.messageId,
    channelMessageId: `emulated-${message.messageId}`,
    contactId: workspace.numericId(message.contactId),
    channelId: message.channelId,
    traffic: 'outgoing',
    message: structuredClone(message.message),
    status: structuredClone(message.status),
    sender: { source: 'api' },
  };
}
