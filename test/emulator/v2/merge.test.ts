/**
 * v2's `POST /contact/merge`: exactly two contact ids of the workspace, optional contact fields
 * validated as an update's; the contact stored first survives with the other's tags and the values
 * it lacks, then the body's fields; the other is gone; the answer names the survivor.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { CHANNEL_TOKEN, createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startV2Emulator();
});
afterEach(async () => {
  await emulator.close();
});

const stored = () => emulator.contacts(CHANNEL_TOKEN);

async function twoOfOneCustomer(): Promise<[number, number]> {
  const older = await createV2Contact(emulator, 'email:ann@example.com', { lastName: 'Lee', custom_fields: [{ name: 'customerid', value: 'C1' }] });
  const newer = await createV2Contact(emulator, 'phone:+6591234567', { firstName: 'Annie', language: 'en', custom_fields: [{ name: 'customerid', value: 'C1' }, { name: 'plan', value: 'gold' }] });
  await v2(emulator, 'POST', `/contact/id:${older}/tag`, { json: ['vip'] });
  await v2(emulator, 'POST', `/contact/id:${newer}/tag`, { json: ['crm', 'vip'] });
  return [older, newer];
}

test('keeps the contact stored first, with the other\'s tags and the values it lacks, and the body\'s fields; the other is gone', async () => {
  const [older, newer] = await twoOfOneCustomer();
  // The ids in either order: which survives is the store's order, not the list's.
  const answer = await v2(emulator, 'POST', '/contact/merge', { json: { contactIds: [newer, older], lastName: 'Lee-Tan' } });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ contactId: older });
  expect((await v2(emulator, 'GET', `/contact/id:${newer}`)).status).toBe(404);
  const survivor = await v2(emulator, 'GET', `/contact/id:${older}`);
  expect(survivor.body).toMatchObject({ id: older, firstName: 'Ann', lastName: 'Lee-Tan', email: 'ann@example.com', phone: '+6591234567', language: 'en' });
  expect(survivor.body.custom_fields).toEqual(expect.arrayContaining([{ name: 'customerid', value: 'C1' }, { name: 'plan', value: 'gold' }]));
  expect([...survivor.body.tags].sort()).toEqual(['crm', 'vip']);
  expect(stored()).toHaveLength(1);
});

test('the merged contact may take the other\'s email in the body (it is gone first)', async () => {
  const older = await createV2Contact(emulator, 'email:ann@example.com');
  const newer = await createV2Contact(emulator, 'email:ann.lee@example.com');
  const answer = await v2(emulator, 'POST', '/contact/merge', { json: { contactIds: [older, newer], email: 'ann.lee@example.com' } });
  expect(answer.status).toBe(200);
  expect((await v2(emulator, 'GET', '/contact/email:ann.lee@example.com')).body.id).toBe(older);
});

test.each([
  ['no contactIds', {}, 400, 'contactIds must be a list of exactly two contact ids, got none'],
  ['one id', { contactIds: [1] }, 400, 'contactIds must be a list of exactly two contact ids, got 1'],
  ['three ids', { contactIds: [1, 2, 3] }, 400, 'contactIds must be a list of exactly two contact ids, got 3'],
  ['ids as text', { contactIds: '1 2' }, 400, 'contactIds must be a list of exactly two contact ids, got a string'],
  ['an id that is text', { contactIds: ['1', 2] }, 400, 'contactIds[0] must be a contact id (a whole number above 0), got "1"'],
  ['an unknown field', { contactIds: 'OLDER,NEWER', plan: 'gold' }, 400, '"plan" is not a contact field (firstName, lastName, phone, email, language, profilePic, countryCode); send it in custom_fields as {"name": "plan", "value": ...}'],
  ['a phone that is not E.164', { contactIds: 'OLDER,NEWER', phone: '91234567' }, 400, 'phone "91234567" is not an E.164 number; give "+" and the country code and number (+6591234567), or null to clear it'],
  ['one contact twice', { contactIds: 'OLDER,OLDER' }, 400, 'contactIds names one contact twice (OLDER); give two different contacts'],
  ['an id of no contact', { contactIds: 'OLDER,999' }, 404, 'Contact not found: no contact of this workspace has the identifier "id:999"'],
])('is refused with %s, changing nothing', async (_case, body: Record<string, unknown>, status, message) => {
  const [older, newer] = await twoOfOneCustomer();
  const ids = (text: string) => text.split(',').map((part) => (part === 'OLDER' ? older : part === 'NEWER' ? newer : Number(part)));
  const json = typeof body.contactIds === 'string' && /OLDER/.test(body.contactIds) ? { ...body, contactIds: ids(body.contactIds) } : body;
  const before = stored();
  const answer = await v2(emulator, 'POST', '/contact/merge', { json });
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ code: status, message: message.replace(/OLDER/g, String(older)) });
  expect(stored()).toEqual(before);
});

test('an email a third contact holds is refused before anything changes', async () => {
  const [older, newer] = await twoOfOneCustomer();
  await createV2Contact(emulator, 'email:bo@example.com', { firstName: 'Bo' });
  const before = stored();
  const answer = await v2(emulator, 'POST', '/contact/merge', { json: { contactIds: [older, newer], email: 'bo@example.com' } });
  expect(answer.status).toBe(400);
  expect(answer.body.message).toMatch(/^email "bo@example.com" belongs to another contact \(id:\d+\)/);
  expect(stored()).toEqual(before);
});
