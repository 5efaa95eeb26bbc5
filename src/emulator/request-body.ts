/**
 * Reads and checks the JSON bodies of the contact operations. Each refusal is the platform's
 * general 403 with a message that names the field and the rule.
 */
import { MAX_FIELDS_PER_CALL, MAX_TAGS_PER_CALL } from '../limits.js';
import { forbidden } from './envelopes.js';

/** Bodies arrive as raw text (see server.ts) so that a bad body is refused after auth, as a 403. */
export function parseJsonBody(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw forbidden(`the request body is not valid JSON (${(error as Error).message}); send a JSON object`);
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

export function asObject(body: unknown, shape: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw forbidden(`the request body must be a JSON object ${shape}, got ${describe(body)}`);
  }
  return body as Record<string, unknown>;
}

/**
 * `{custom_fields: [{name, value}]}` of create and update: 1 to 30 entries, string names and
 * values, names in `allowedFields` when the workspace has a list.
 */
export function readCustomFields(
  body: unknown,
  allowedFields: ReadonlySet<string> | undefined,
): Array<[string, string]> {
  const list = asObject(body, '{"custom_fields": [{"name", "value"}]}').custom_fields;
  if (!Array.isArray(list)) {
    throw forbidden(`custom_fields must be a list of {"name", "value"} objects, got ${describe(list)}`);
  }
  if (list.length === 0) throw forbidden('custom_fields is empty; give at least one {"name", "value"}');
  if (list.length > MAX_FIELDS_PER_CALL) {
    throw forbidden(`custom_fields holds ${list.length} entries; at most ${MAX_FIELDS_PER_CALL} are accepted per call`);
  }
  return list.map((entry: unknown, index): [string, string] => {
    const where = `custom_fields[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw forbidden(`${where} must be an object {"name", "value"}, got ${describe(entry)}`);
    }
    const { name, value } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw forbidden(`${where}.name must be a non-empty string, got ${describe(name)}`);
    if (typeof value !== 'string') throw forbidden(`${where}.value of field "${name}" must be a string, got ${describe(value)}`);
    if (allowedFields !== undefined && !allowedFields.has(name)) {
      throw forbidden(`custom field "${name}" does not exist in this workspace; create it in the platform's settings first`);
    }
    return [name, value];
  });
}

/** `{tags: [string]}` of add and remove tags: 1 to 10 non-empty strings. */
export function readTags(body: unknown): string[] {
  const tags = asObject(body, '{"tags": [string]}').tags;
  if (!Array.isArray(tags)) throw forbidden(`tags must be a list of strings, got ${describe(tags)}`);
  if (tags.length === 0) throw forbidden('tags is empty; give at least one tag');
  if (tags.length > MAX_TAGS_PER_CALL) {
    throw forbidden(`tags holds ${tags.length} entries; at most ${MAX_TAGS_PER_CALL} are accepted per call`);
  }
  return tags.map((tag: unknown, index) => {
    if (typeof tag !== 'string' || tag === '') throw forbidden(`tags[${index}] must be a non-empty string, got ${describe(tag)}`);
    return tag;
  });
}
