/** Checks contacts given to the admin API (or `loadContacts`) before they are stored. */
import type { ContactSeed } from './contact-store.js';
import { RefusedRequest } from './envelopes.js';
import { describe } from './request-body.js';

function invalid(message: string): RefusedRequest {
  return new RefusedRequest(400, message);
}

export function readContactSeeds(raw: unknown, where = 'contacts'): ContactSeed[] {
  if (!Array.isArray(raw)) throw invalid(`${where} must be a list of contacts, got ${describe(raw)}`);
  return raw.map((entry: unknown, index) => readContactSeed(entry, `${where}[${index}]`));
}

function readContactSeed(entry: unknown, where: string): ContactSeed {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw invalid(`${where} must be an object {id?, custom_fields?, tags?, created_at?}, got ${describe(entry)}`);
  }
  const { id, custom_fields: fields, tags, created_at: createdAt } = entry as Record<string, unknown>;
  const seed: ContactSeed = {};
  if (id !== undefined) {
    if (typeof id !== 'string' || id === '' || id.includes('/')) {
      throw invalid(`${where}.id must be a non-empty string without "/", got ${describe(id)}`);
    }
    seed.id = id;
  }
  if (fields !== undefined) {
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      throw invalid(`${where}.custom_fields must be an object of field name to string value, got ${describe(fields)}`);
    }
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value !== 'string') throw invalid(`${where}.custom_fields.${name} must be a string, got ${describe(value)}`);
    }
    seed.custom_fields = { ...(fields as Record<string, string>) };
  }
  if (tags !== undefined) {
    if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string' || tag === '')) {
      throw invalid(`${where}.tags must be a list of non-empty strings`);
    }
    seed.tags = [...(tags as string[])];
  }
  if (createdAt !== undefined) {
    if (!Number.isSafeInteger(createdAt) || (createdAt as number) < 0) {
      throw invalid(`${where}.created_at must be a Unix time in whole seconds, got ${JSON.stringify(createdAt)}`);
    }
    seed.created_at = createdAt as number;
  }
  return seed;
}
