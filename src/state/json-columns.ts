/**
 * The state store's JSON columns, read back. They are written only by the store's own modules;
 * the parsers still keep only well-typed entries so a hand-edited file cannot put a non-string
 * where a string is promised.
 */

/** A `fields_json` column: custom field name -> value. */
export function parseFields(json: string): Record<string, string> {
  const value: unknown = JSON.parse(json);
  const fields: Record<string, string> = {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [name, field] of Object.entries(value)) if (typeof field === 'string') fields[name] = field;
  }
  return fields;
}

/** A `tags_json` or `job_tags_json` column: a list of tags. */
export function parseTags(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
}

/** A `rows_json` column: rows by outcome. */
export function parseCounts(json: string): Record<string, number> {
  const value: unknown = JSON.parse(json);
  const counts: Record<string, number> = {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [name, count] of Object.entries(value)) if (typeof count === 'number') counts[name] = count;
  }
  return counts;
}
