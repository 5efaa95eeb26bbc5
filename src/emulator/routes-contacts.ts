/** Operations 1 to 6 of the spec: search, get, update, add tags, remove tags, create. */
import type { FastifyInstance } from 'fastify';
import type { ContactPage } from '../api/wire-types.js';
import { SEARCH_PAGE_SIZE } from '../limits.js';
import { CONTACT_PATH, CREATE_PATH, SEARCH_PATH, TAGS_PATH } from './api-paths.js';
import { channelHandler } from './channel-request.js';
import type { ChannelOperation, ClosingSignal, OperationRequest } from './channel-request.js';
import { contactAnswer, updateAnswerId, type AnsweredContact, type ValueTypes } from './contact-answer.js';
import { contactIdFromPath } from './contact-path-id.js';
import type { EmulatorState } from './emulator-state.js';
import { forbidden, successEnvelope } from './envelopes.js';
import { parseJsonBody, readCustomFields, readTags } from './request-body.js';

/** Operation 1's answer: a `ContactPage` whose values may be typed (`valueTypes`). */
type SearchPage = Omit<ContactPage, 'data'> & { data: AnsweredContact[] };

export function registerContactRoutes(app: FastifyInstance, state: EmulatorState, closing: ClosingSignal): void {
  const route = (operation: ChannelOperation) => channelHandler(state, closing, operation);

  app.get(SEARCH_PATH, route({ operation: 'searchContacts', group: 'contacts', run: (request) => searchContacts(request, state.valueTypes) }));

  app.get(
    CONTACT_PATH,
    route({
      operation: 'getContact',
      group: 'contacts',
      run: ({ channel, params }) => {
        const id = contactIdFromPath(channel, 'getContact', params.contactId ?? '');
        const contact = channel.contacts.get(id);
        return { data: contact === undefined ? undefined : contactAnswer(contact, state.valueTypes) };
      },
    }),
  );

  app.put(
    CONTACT_PATH,
    route({
      operation: 'updateContact',
      group: 'contacts',
      run: ({ channel, params, rawBody }) => {
        const id = contactIdFromPath(channel, 'updateContact', params.contactId ?? '');
        const fields = readCustomFields(parseJsonBody(rawBody), state.allowedFields);
        channel.contacts.updateFields(id, fields);
        return { data: { id: updateAnswerId(id, state.updateAnswerId) } };
      },
    }),
  );

  app.post(
    TAGS_PATH,
    route({
      operation: 'addTags',
      group: 'contacts',
      run: ({ channel, params, rawBody }) => {
        const id = contactIdFromPath(channel, 'addTags', params.contactId ?? '');
        const tags = readTags(parseJsonBody(rawBody));
        channel.contacts.addTags(id, tags);
        return successEnvelope('Tags added');
      },
    }),
  );

  app.delete(
    TAGS_PATH,
    route({
      operation: 'removeTags',
      group: 'contacts',
      run: ({ channel, params, rawBody }) => {
        const id = contactIdFromPath(channel, 'removeTags', params.contactId ?? '');
        const tags = readTags(parseJsonBody(rawBody));
        channel.contacts.removeTags(id, tags);
        return successEnvelope('Tags removed');
      },
    }),
  );

  app.post(
    CREATE_PATH,
    route({
      operation: 'createContact',
      group: 'contacts',
      run: ({ channel, rawBody }) => {
        const fields = readCustomFields(parseJsonBody(rawBody), state.allowedFields);
        const contact = channel.contacts.create(fields);
        return { data: { id: contact.id } };
      },
    }),
  );
}

/**
 * Operation 1. Links are absolute, on plain http and the request's Host, and carry only `page`,
 * like the live platform's (platform notes): a client must not follow them literally.
 */
function searchContacts({ channel, query, host }: OperationRequest, valueTypes: ValueTypes): SearchPage {
  const name = singleQueryValue(query, 'name');
  const value = singleQueryValue(query, 'value');
  if (name === undefined || name === '') throw forbidden('the query parameter "name" (custom field name) is required');
  if (value === undefined) throw forbidden('the query parameter "value" (value to match) is required');
  const page = pageNumber(query.page);
  const offset = (page - 1) * SEARCH_PAGE_SIZE;
  const { total, contacts } = channel.contacts.search(name, value, offset, SEARCH_PAGE_SIZE);
  const lastPage = Math.max(1, Math.ceil(total / SEARCH_PAGE_SIZE));
  const path = `http://${host}${SEARCH_PATH}`;
  const link = (n: number): string => `${path}?page=${n}`;
  return {
    data: contacts.map((contact) => contactAnswer(contact, valueTypes)),
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page > 1 ? link(page - 1) : null,
      next: page < lastPage ? link(page + 1) : null,
    },
    meta: {
      current_page: page,
      from: contacts.length > 0 ? offset + 1 : null,
      last_page: lastPage,
      path,
      per_page: SEARCH_PAGE_SIZE,
      to: contacts.length > 0 ? offset + contacts.length : null,
      total,
    },
  };
}

function singleQueryValue(query: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = query[key];
  if (value === undefined || typeof value === 'string') return value;
  throw forbidden(`the query parameter "${key}" must be given once`);
}

/** Like the platform's paginator: a missing or unusable page number means page 1. */
function pageNumber(raw: unknown): number {
  const page = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : 1;
  return page >= 1 ? page : 1;
}
