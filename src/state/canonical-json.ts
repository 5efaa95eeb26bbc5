/**
 * JSON with object keys sorted at every depth, so that two values equal as data serialise to the
 * same text whatever order their keys were built in. The basis of every hash the state store keeps.
 */

/** A value that has one JSON text. */
export type CanonicalValue =
  | string
  | number
  | boolean
  | null
  | readonly CanonicalValue[]
  | { readonly [name: string]: CanonicalValue };

export function canonicalJson(value: CanonicalValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (isList(value)) return `[${value.map(canonicalJson).join(',')}]`;
  // Default sort compares UTF-16 code units: the same order on every machine and locale,
  // which localeCompare does not promise.
  const names = Object.keys(value).sort();
  return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(value[name] ?? null)}`).join(',')}}`;
}

function isList(value: object): value is readonly CanonicalValue[] {
  return Array.isArray(value);
}
