/**
 * What the state-store tests share: the customers job with a state store, the contact each row of
 * `customersCsv` should become, and edits made on the platform behind the job's back (as another
 * user of the platform would make them).
 */
import type { Contact } from '../../src/api/wire-types.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CUSTOMERS_JOB, TOKEN } from './cli-harness.js';

/** CUSTOMERS_JOB with a state store beside the jobs file. */
export const STATE_JOB = CUSTOMERS_JOB.replace('state: false', 'state: state/import.db');

/** The state file of STATE_JOB, relative to the workspace. */
export const STATE_FILE = 'state/import.db';

export interface ExpectedContact {
  fields: Record<string, string>;
  /** Sorted. */
  tags: string[];
}

/** The contact row `i` of an unchanged `customersCsv` makes under CUSTOMERS_JOB. */
export function expectedCustomer(i: number): ExpectedContact {
  const key = customerKey(i);
  return {
    fields: { customerid: key, firstName: `First${i}`, lastName: `Last${i}`, email: `user${i}@example.com`, plan: i % 2 === 0 ? 'pro' : 'basic' },
    tags: i % 3 === 0 ? ['crm', 'newsletter', 'vip'] : ['crm', 'newsletter'],
  };
}

/** `C0001` for 1: the key of row `i` of customersCsv. */
export function customerKey(i: number): string {
  return `C${String(i).padStart(4, '0')}`;
}

/** The channel's contacts grouped by their `customerid`. */
export function contactsByKey(emulator: RunningEmulator): Map<string, Contact[]> {
  const byKey = new Map<string, Contact[]>();
  for (const contact of emulator.contacts(TOKEN)) {
    const key = contact.custom_fields.customerid ?? '';
    byKey.set(key, [...(byKey.get(key) ?? []), contact]);
  }
  return byKey;
}

/** A contact as `{fields, tags}` with sorted tags, to compare with an ExpectedContact. */
export function asExpected(contact: Contact | undefined): ExpectedContact | undefined {
  return contact === undefined ? undefined : { fields: { ...contact.custom_fields }, tags: [...contact.tags].sort() };
}

/** The id of the one contact holding `key`; throws when there is none or several. */
export function contactIdOf(emulator: RunningEmulator, key: string): string {
  const found = contactsByKey(emulator).get(key) ?? [];
  if (found.length !== 1 || found[0] === undefined) throw new Error(`expected one contact with customerid ${key}, found ${found.length}`);
  return found[0].id;
}

/**
 * A call to the emulator's channel API made by the test itself (someone editing the contact on
 * the platform). It shows in the emulator's counters: reset them afterwards.
 */
export async function editOnPlatform(
  emulator: RunningEmulator,
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  body: unknown,
): Promise<void> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: the emulator answered ${response.status} ${await response.text()}`);
}
