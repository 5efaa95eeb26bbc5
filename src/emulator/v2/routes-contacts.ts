/**
 * v2's contact endpoints (the SDK's src/clients/contact.ts): get, create, create or update,
 * update, delete, merge, list, add and remove tags, over the one contact store both surfaces share.
 */
import type { FastifyInstance } from 'fastify';
import type { Contact } from '../../api/wire-types.js';
import { MAX_TAGS_PER_CALL, V2_MAX_TAG_LENGTH } from '../../limits.js';
import type { ClosingSignal } from '../channel-request.js';
import type { EmulatorState } from '../emulator-state.js';
import { describe } from '../request-body.js';
import { readContactFields, valueSet, type ContactChanges } from './contact-fields.js';
import { filterContacts, readContactListFilter } from './contact-list.js';
import { cursorPage, readPageRequest } from './cursor-page.js';
import { parseIdentifier, type ContactIdentifier } from './identifier.js';
import { v2Contact } from './v2-contact.js';
import { parseV2Body } from './v2-body.js';
import { badRequest, contactNotFound } from './v2-errors.js';
import { V2_ENDPOINTS } from './v2-paths.js';
import { v2Handler, type V2Operation, type V2OperationRequest } from './v2-request.js';
import type { Workspace } from './workspace.js';

/** What a plain create answers (the SDK's type of `create` and its test's sample: no contact id). */
export const CONTACT_ADDED = { code: '200', message: 'Contact added successfully!' } as const;

export function registerV2ContactRoutes(app: FastifyInstance, state: EmulatorState, closing: ClosingSignal): void {
  const route = (operation: V2Operation): void => {
    app.route({ method: operation.endpoint.method, url: operation.endpoint.url, handler: v2Handler(state, closing, operation) });
  };
  const rules = (create: boolean) => ({ create, allowedFields: state.allowedFields });

  route({
    endpoint: V2_ENDPOINTS.getContact,
    run: ({ workspace, params }) => {
      const id = existing(workspace, params.identifier);
      return v2Contact(workspace.contacts.get(id) as Contact, workspace.numericId(id), state.valueTypes);
    },
  });

  route({
    endpoint: V2_ENDPOINTS.createContact,
    run: ({ workspace, params, rawBody }) => {
      const identifier = parseIdentifier(params.identifier ?? '');
      if (identifier.kind === 'id') {
        throw badRequest(`a contact is created by email:<address> or phone:<+E.164>, not by "${identifier.text}"; an id is the platform's to give`);
      }
      if (workspace.find(identifier) !== undefined) {
        throw badRequest(`a contact with the identifier "${identifier.text}" already exists; update it with PUT, or use create_or_update`);
      }
      createContact(workspace, identifier, readContactFields(parseV2Body(rawBody), rules(true)));
      return CONTACT_ADDED;
    },
  });

  route({
    endpoint: V2_ENDPOINTS.createOrUpdateContact,
    run: ({ workspace, params, rawBody }) => {
      const identifier = parseIdentifier(params.identifier ?? '');
      const changes = readContactFields(parseV2Body(rawBody), rules(true));
      const found = workspace.find(identifier);
      if (found !== undefined) {
        updateContact(workspace, found, changes);
        return { contactId: workspace.numericId(found) };
      }
      if (identifier.kind === 'id') throw contactNotFound(identifier.text);
      return { contactId: workspace.numericId(createContact(workspace, identifier, changes)) };
    },
  });

  route({
    endpoint: V2_ENDPOINTS.updateContact,
    run: ({ workspace, params, rawBody }) => {
      const id = existing(workspace, params.identifier);
      updateContact(workspace, id, readContactFields(parseV2Body(rawBody), rules(false)));
      return { contactId: workspace.numericId(id) };
    },
  });

  route({
    endpoint: V2_ENDPOINTS.deleteContact,
    run: ({ workspace, params }) => {
      const id = existing(workspace, params.identifier);
      const contactId = workspace.numericId(id);
      workspace.contacts.delete(id);
      return { contactId };
    },
  });

  route({ endpoint: V2_ENDPOINTS.listContacts, run: (request) => listContacts(request, state) });

  route({
    endpoint: V2_ENDPOINTS.mergeContacts,
    run: ({ workspace, rawBody }) => mergeContacts(workspace, parseV2Body(rawBody), state.allowedFields),
  });

  route({
    endpoint: V2_ENDPOINTS.addTags,
    run: ({ workspace, params, rawBody }) => {
      const id = existing(workspace, params.identifier);
      workspace.contacts.addTags(id, readTagList(parseV2Body(rawBody)));
      return { contactId: workspace.numericId(id) };
    },
  });

  route({
    endpoint: V2_ENDPOINTS.removeTags,
    run: ({ workspace, params, rawBody }) => {
      const id = existing(workspace, params.identifier);
      workspace.contacts.removeTags(id, readTagList(parseV2Body(rawBody)));
      return { contactId: workspace.numericId(id) };
    },
  });
}

/** The store id of the contact the path names; 400 for a malformed identifier, 404 for none. */
export function existing(workspace: Workspace, segment: string | undefined): string {
  const identifier = parseIdentifier(segment ?? '');
  const id = workspace.find(identifier);
  if (id === undefined) throw contactNotFound(identifier.text);
  return id;
}

/**
 * The identifier's email or phone is the new contact's (a body that gives another is refused),
 * so every contact created through v2 has one of them.
 */
function createContact(workspace: Workspace, identifier: Exclude<ContactIdentifier, { kind: 'id' }>, changes: ContactChanges): string {
  const [field, value] = identifier.kind === 'email' ? (['email', identifier.email] as const) : (['phone', identifier.phone] as const);
  const given = valueSet(changes, field);
  if (changes.clear.includes(field) || (given !== undefined && given !== value)) {
    throw badRequest(`${field} in the body differs from the identifier "${identifier.text}"; leave it out or give the same ${field}`);
  }
  const fields = given === undefined ? [...changes.set, [field, value] as [string, string]] : changes.set;
  checkUnique(workspace, fields, []);
  return workspace.contacts.create(fields).id;
}

function updateContact(workspace: Workspace, id: string, changes: ContactChanges): void {
  checkUnique(workspace, changes.set, [id]);
  workspace.contacts.updateFields(id, changes.set);
  workspace.contacts.clearFields(id, changes.clear);
}

/** An email or a phone belongs to one contact of a workspace (unverified: the refusal's status and words). */
function checkUnique(workspace: Workspace, fields: ReadonlyArray<readonly [string, string]>, selves: readonly string[]): void {
  for (const [name, value] of fields) {
    if (name !== 'email' && name !== 'phone') continue;
    const holder = workspace.holderOf(name, value);
    if (holder !== undefined && !selves.includes(holder)) {
      throw badRequest(`${name} "${value}" belongs to another contact (id:${workspace.numericId(holder)}); ${name === 'email' ? 'an email' : 'a phone'} identifies one contact of a workspace`);
    }
  }
}

/** A JSON list of 1 to 10 tag names of at most 255 characters (the SDK's `addTags` doc comment). */
function readTagList(body: unknown): string[] {
  if (!Array.isArray(body)) throw badRequest(`the body must be a JSON list of tag names, got ${describe(body)}`);
  if (body.length === 0 || body.length > MAX_TAGS_PER_CALL) {
    throw badRequest(`the body holds ${body.length} tags; give 1 to ${MAX_TAGS_PER_CALL} a call`);
  }
  return body.map((tag: unknown, index) => {
    if (typeof tag !== 'string' || tag === '' || [...tag].length > V2_MAX_TAG_LENGTH) {
      throw badRequest(`tag [${index}] must be a string of 1 to ${V2_MAX_TAG_LENGTH} characters, got ${describe(tag)}`);
    }
    return tag;
  });
}

function listContacts({ workspace, query, rawBody, root }: V2OperationRequest, state: EmulatorState) {
  const page = readPageRequest(query);
  const filter = readContactListFilter(parseV2Body(rawBody));
  const matches = filterContacts(workspace.contacts, filter, state.searchFold)
    .map((contact) => ({ contact, id: workspace.numericId(contact.id) }))
    .sort((a, b) => a.id - b.id);
  const { items, pagination } = cursorPage(matches, (match) => match.id, page, `${root}/contact/list`);
  return { items: items.map(({ contact, id }) => v2Contact(contact, id, state.valueTypes)), pagination };
}

/**
 * `POST /contact/merge` (the SDK's `MergeContactsRequest`): `contactIds`, exactly two ids of the
 * workspace, plus any contact fields the merged contact should hold, validated as an update's.
 * Which contact survives and what becomes of the other's values the platform's material does not
 * say: the emulator keeps the one stored first, gives it the other's tags and the values it lacks,
 * then the body's fields, and deletes the other (docs/emulator.md). Clients read the survivor
 * back rather than trust this choice. Answers `{contactId}` of the survivor, as an update does.
 */
function mergeContacts(workspace: Workspace, body: unknown, allowedFields: ReadonlySet<string> | undefined): { contactId: number } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the request body must be a JSON object {"contactIds": [<id>, <id>], ...contact fields}, got ${describe(body)}`);
  }
  const { contactIds, ...fields } = body as Record<string, unknown>;
  if (!Array.isArray(contactIds) || contactIds.length !== 2) {
    const got = contactIds === undefined ? 'none' : Array.isArray(contactIds) ? `${contactIds.length}` : describe(contactIds);
    throw badRequest(`contactIds must be a list of exactly two contact ids, got ${got}`);
  }
  const ids = contactIds.map((value: unknown, index) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw badRequest(`contactIds[${index}] must be a contact id (a whole number above 0), got ${JSON.stringify(value) ?? 'none'}`);
    }
    const id = workspace.find({ kind: 'id', id: value, text: `id:${value}` });
    if (id === undefined) throw contactNotFound(`id:${value}`);
    return id;
  }) as [string, string];
  if (ids[0] === ids[1]) throw badRequest(`contactIds names one contact twice (${String(contactIds[0])}); give two different contacts`);
  const changes = Object.keys(fields).length === 0 ? { set: [], clear: [] } : readContactFields(fields, { create: false, allowedFields });
  const [survivor, merged] = workspace.contacts.storedBefore(ids[0], ids[1]) ? ids : [ids[1], ids[0]];
  const kept = workspace.contacts.get(survivor) as Contact;
  const gone = workspace.contacts.get(merged) as Contact;
  const lacking = Object.entries(gone.custom_fields).filter(([name]) => kept.custom_fields[name] === undefined);
  // Refused before anything changes: an email or phone of a third contact.
  checkUnique(workspace, changes.set, [survivor, merged]);
  // The other contact goes first, so its email or phone may pass to the survivor.
  workspace.contacts.delete(merged);
  workspace.contacts.updateFields(survivor, lacking);
  workspace.contacts.addTags(survivor, gone.tags);
  updateContact(workspace, survivor, changes);
  return { contactId: workspace.numericId(survivor) };
}
