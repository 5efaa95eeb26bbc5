import { stripUrlAuth } from '../api/strip-url-auth.js';
import type { YamlPath } from './yaml-path.js';

const MAX_SHOWN = 60;

/** Keys whose value is a secret: never echoed, whatever is wrong with it. */
const SECRET_KEYS: ReadonlySet<string> = new Set(['token']);

/**
 * A value as a message may echo it: strings quoted and cut at 60 characters, collections by kind,
 * credentials in URLs removed and the token not shown at all.
 */
export function showValue(value: unknown, path: YamlPath): string {
  if (isSecretPath(path)) return 'the token value';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return typeof value;
  const masked = stripUrlAuth(value);
  const cut = masked.length > MAX_SHOWN ? `${masked.slice(0, MAX_SHOWN)}...` : masked;
  return JSON.stringify(cut);
}

/** `a string`, `a number`, `a list`...: what the user wrote, for type mismatches. */
export function kindOf(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

/** True when the value at `path` must never be echoed. */
export function isSecretPath(path: YamlPath): boolean {
  const last = path[path.length - 1];
  return typeof last === 'string' && SECRET_KEYS.has(last);
}
