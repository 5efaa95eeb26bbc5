/**
 * `POST /contact/list`'s body (the SDK's `ContactFilter`, src/types/contact.ts):
 * `{search?, timezone, filter: {$and?: [...], $or?: [...]}}`, each condition
 * `{category, field, operator, value}`. The emulator answers the conditions a sync needs and
 * refuses the others by name, so no condition is silently ignored:
 * `contactField` with `isEqualTo`, `isNotEqualTo`, `exists`, `doesNotExist`; `contactTag` with
 * `hasAnyOf`, `hasAllOf`, `hasNoneOf`. `isEqualTo` matches as a v1 search matches (exactly; an
 * email's case ignored unless `emailSearch: 'exact'`); that the platform matches a custom field
 * exactly is unverified.
 */
import type { Contact } from '../../api/wire-types.js';
import type { ContactStore, SearchFold } from '../contact-store.js';
import { describe } from '../request-body.js';
import { badRequest } from './v2-errors.js';

type Condition =
  | { category: 'contactField'; field: string; operator: 'isEqualTo' | 'isNotEqualTo'; value: string }
  | { category: 'contactField'; field: string; operator: 'exists' | 'doesNotExist' }
  | { category: 'contactTag'; operator: 'hasAnyOf' | 'hasAllOf' | 'hasNoneOf'; value: string[] };

export interface ContactListFilter {
  /** Every condition must hold (`$and`); with `$or`, at least one of those too. */
  and: Condition[];
  or: Condition[] | undefined;
}

const FIELD_OPERATORS = ['isEqualTo', 'isNotEqualTo', 'exists', 'doesNotExist'];
const TAG_OPERATORS = ['hasAnyOf', 'hasAllOf', 'hasNoneOf'];

export function readContactListFilter(body: unknown): ContactListFilter {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the request body must be {"search", "timezone", "filter": {"$and": [...]}}, got ${describe(body)}`);
  }
  const { search, timezone, filter } = body as Record<string, unknown>;
  if (search !== undefined && search !== '') {
    throw badRequest('search: a free-text search is not emulated; send "" and find contacts with filter conditions');
  }
  if (typeof timezone !== 'string' || timezone === '') throw badRequest(`timezone is required (e.g. "UTC"), got ${JSON.stringify(timezone) ?? 'none'}`);
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw badRequest(`filter must be an object {"$and": [...]} or {"$or": [...]}, got ${describe(filter)}`);
  }
  const { $and, $or, ...others } = filter as Record<string, unknown>;
  const [unknown] = Object.keys(others);
  if (unknown !== undefined) throw badRequest(`filter.${unknown} is not a filter; use $and or $or`);
  return { and: readConditions($and, '$and') ?? [], or: readConditions($or, '$or') };
}

function readConditions(list: unknown, where: string): Condition[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) throw badRequest(`filter.${where} must be a list of conditions, got ${describe(list)}`);
  return list.map((entry: unknown, index) => readCondition(entry, `filter.${where}[${index}]`));
}

function readCondition(entry: unknown, where: string): Condition {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw badRequest(`${where} must be {category, field, operator, value}, got ${describe(entry)}`);
  const { category, field, operator, value } = entry as Record<string, unknown>;
  if (category === 'contactField') {
    if (typeof field !== 'string' || field === '') throw badRequest(`${where}.field must name a contact field or custom field, got ${describe(field)}`);
    if (operator === 'exists' || operator === 'doesNotExist') return { category, field, operator };
    if (operator === 'isEqualTo' || operator === 'isNotEqualTo') {
      if (typeof value !== 'string') throw badRequest(`${where}.value must be a string for ${operator}, got ${describe(value)}`);
      return { category, field, operator, value };
    }
    throw badRequest(`${where}.operator ${JSON.stringify(operator)} is not emulated on contactField; use ${FIELD_OPERATORS.join(', ')}`);
  }
  if (category === 'contactTag') {
    if (operator !== 'hasAnyOf' && operator !== 'hasAllOf' && operator !== 'hasNoneOf') {
      throw badRequest(`${where}.operator ${JSON.stringify(operator)} is not emulated on contactTag; use ${TAG_OPERATORS.join(', ')}`);
    }
    if (!Array.isArray(value) || value.some((tag) => typeof tag !== 'string')) throw badRequest(`${where}.value must be a list of tag names`);
    return { category, operator, value: value as string[] };
  }
  throw badRequest(`${where}.category ${JSON.stringify(category)} is not emulated; use contactField or contactTag`);
}

/**
 * The contacts the filter keeps, in the store's order. One `isEqualTo` of `$and` narrows through
 * the store's index first, so the usual look-up by a key field costs O(matches).
 */
export function filterContacts(store: ContactStore, filter: ContactListFilter, fold: SearchFold): Contact[] {
  const indexed = filter.and.find((condition) => condition.category === 'contactField' && condition.operator === 'isEqualTo');
  const candidates =
    indexed !== undefined && indexed.category === 'contactField' && indexed.operator === 'isEqualTo'
      ? store.search(indexed.field, indexed.value, 0, Number.MAX_SAFE_INTEGER).contacts
      : store.all();
  return candidates.filter(
    (contact) =>
      filter.and.every((condition) => holds(contact, condition, fold)) &&
      (filter.or === undefined || filter.or.length === 0 || filter.or.some((condition) => holds(contact, condition, fold))),
  );
}

function holds(contact: Contact, condition: Condition, fold: SearchFold): boolean {
  if (condition.category === 'contactTag') {
    const has = (tag: string): boolean => contact.tags.includes(tag);
    if (condition.operator === 'hasAnyOf') return condition.value.some(has);
    if (condition.operator === 'hasAllOf') return condition.value.every(has);
    return !condition.value.some(has);
  }
  const stored = contact.custom_fields[condition.field];
  switch (condition.operator) {
    case 'exists':
      return stored !== undefined;
    case 'doesNotExist':
      return stored === undefined;
    case 'isEqualTo':
      return stored !== undefined && fold(condition.field, stored) === fold(condition.field, condition.value);
    case 'isNotEqualTo':
      return stored === undefined || fold(condition.field, stored) !== fold(condition.field, condition.value);
  }
}
