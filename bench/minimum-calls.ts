/**
 * The fewest calls each scenario's data allows, derived from the platform's API and from what the
 * tool can know, never from what contact-sync happens to do. The derivation text goes into
 * RESULTS.md next to the figure.
 */
import { MAX_FIELDS_PER_CALL, MAX_TAGS_PER_CALL, SEARCH_PAGE_SIZE } from '../src/limits.js';
import { FIELDS_PER_ROW, TAGS_PER_ROW, type RowChange } from './customer-file.js';

export type CountedOperation = 'searchContacts' | 'createContact' | 'updateContact' | 'addTags' | 'removeTags';

export interface MinimumCalls {
  calls: Partial<Record<CountedOperation, number>>;
  /** How the figure follows from the data and the API. */
  derivation: string;
}

export function totalOf(calls: Partial<Record<CountedOperation, number>>): number {
  return Object.values(calls).reduce((sum, n) => sum + n, 0);
}

/** Fields of a new contact: the key plus the mapped fields, in calls of 30 (the first a create). */
const CREATE_CALLS = Math.ceil((FIELDS_PER_ROW + 1) / MAX_FIELDS_PER_CALL);
/** Tags cannot be set by create: they take add-tags calls of 10. */
const TAG_CALLS = Math.ceil(TAGS_PER_ROW / MAX_TAGS_PER_CALL);

export function firstImportMinimum(rows: number): MinimumCalls {
  return {
    calls: { searchContacts: rows, createContact: rows * CREATE_CALLS, addTags: rows * TAG_CALLS },
    derivation:
      `each new row needs ceil(${FIELDS_PER_ROW + 1} fields / ${MAX_FIELDS_PER_CALL}) = ${CREATE_CALLS} create and ceil(${TAGS_PER_ROW} tags / ${MAX_TAGS_PER_CALL}) = ${TAG_CALLS} add-tags (create takes no tags); ` +
      'in upsert mode with an empty state the tool cannot know the channel is empty, so 1 search a row is the price of not creating duplicates',
  };
}

export function rerunWithoutStateMinimum(rows: number): MinimumCalls {
  return {
    calls: { searchContacts: rows },
    derivation: 'nothing differs, so no write; without a state store each key must be looked up once (1 search a row, 1 page each)',
  };
}

export function rerunWithStateMinimum(): MinimumCalls {
  return { calls: {}, derivation: 'nothing differs and the state store knows every key, its id and what was written: no call' };
}

export function changedRowsMinimum(rows: number, changeOf: (index: number) => RowChange | undefined): MinimumCalls {
  let updates = 0;
  let tagCalls = 0;
  for (let index = 1; index <= rows; index++) {
    const change = changeOf(index);
    if (change?.field === true) updates++;
    if (change?.tag === true) tagCalls++;
  }
  return {
    calls: { updateContact: updates, addTags: tagCalls },
    derivation: `${updates} rows have a changed field (1 update each, by the id the state knows: no search) and ${tagCalls} of them a new tag (1 add-tags each); the other rows need nothing`,
  };
}

export function reconcileMinimum(contacts: number, fieldDiffs: number, tagDiffs: number): MinimumCalls {
  const pages = Math.ceil(contacts / SEARCH_PAGE_SIZE);
  return {
    calls: { searchContacts: pages, updateContact: fieldDiffs, addTags: tagDiffs },
    derivation:
      `reading ${contacts} contacts takes ceil(${contacts} / ${SEARCH_PAGE_SIZE} a page) = ${pages} searches; then ${fieldDiffs} contacts differ in a field (1 update each) ` +
      `and ${tagDiffs} lack a tag (1 add-tags each); every row's key is in the index, so no search per row`,
  };
}

export function migrationMinimum(rows: number): MinimumCalls {
  return {
    calls: { createContact: rows * CREATE_CALLS, addTags: rows * TAG_CALLS },
    derivation: `${CREATE_CALLS} create + ${TAG_CALLS} add-tags a row; mode: create with a state store takes new keys as new (the user says so), so no search`,
  };
}
