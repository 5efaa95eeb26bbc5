/**
 * v2's contact writes: create (firstName required, by email or phone only, answers {code, message}
 * without an id), create_or_update and PUT (answer {contactId}), delete, top-level fields and
 * custom_fields onto the one store, an email or phone held by one contact.
 */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { CHANNEL_TOKEN, createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
let clockMs = 1_700_000_000_000;
beforeEach(async () => {
  emulator = await startV2Emulator({ now: () => clockMs });
});
afterEach(async () => {
  await emulator.close();
});

const stored = () => emulator.contacts(CHANNEL_TOKEN);

describe('create contact (POST /contact/{identifier})', () => {
  test('answers {code: "200", message} without an id, and stores the identifier\'s email with the fields', async () => {
    clockMs = 1_700_000_123_999;
    const answer = await v2(emulator, 'POST', '/contact/email:ann@example.com', {
      json: { firstName: 'Ann', lastName: 'Lee', language: 'en', custom_fields: [{ name: 'plan', value: 'gold' }, { name: 'seats', value: 3 }, { name: 'vip', value: true }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ code: '200', message: 'Contact added successfully!' });
    expect(stored()).toEqual([
      {
        id: '1776025372480910',
        custom_fields: { firstName: 'Ann', lastName: 'Lee', language: 'en', plan: 'gold', seats: '3', vip: 'true', email: 'ann@example.com' },
        tags: [],
        created_at: 1_700_000_123,
      },
    ]);
  });

  test('a phone identifier gives the contact its phone', async () => {
    expect((await v2(emulator, 'POST', '/contact/phone:+6591234567', { json: { firstName: 'Bo' } })).status).toBe(200);
    expect(stored()[0]?.custom_fields).toEqual({ firstName: 'Bo', phone: '+6591234567' });
  });

  test.each([
    ['without firstName', { lastName: 'Lee' }, 'firstName is required to create a contact (a non-empty string), got none'],
    ['with an empty firstName', { firstName: ' ' }, 'firstName is required to create a contact (a non-empty string), got " "'],
    ['with an unknown top-level field', { firstName: 'Ann', plan: 'gold' }, '"plan" is not a contact field (firstName, lastName, phone, email, language, profilePic, countryCode); send it in custom_fields as {"name": "plan", "value": ...}'],
    ['with an email that differs from the identifier', { firstName: 'Ann', email: 'bo@example.com' }, 'email in the body differs from the identifier "email:ann@example.com"; leave it out or give the same email'],
    ['with a phone that is not E.164', { firstName: 'Ann', phone: '91234567' }, 'phone "91234567" is not an E.164 number; give "+" and the country code and number (+6591234567), or null to clear it'],
    ['with a standard field in custom_fields', { firstName: 'Ann', custom_fields: [{ name: 'lastName', value: 'Lee' }] }, 'custom_fields[0]: "lastName" is a contact field, not a custom field; give it at the top level of the body'],
    ['with an object as a custom value', { firstName: 'Ann', custom_fields: [{ name: 'plan', value: {} }] }, 'custom_fields[0].value of "plan" must be a string, number, boolean or null, got a object'],
  ])('is refused 400 %s, creating nothing', async (_case, body, message) => {
    const answer = await v2(emulator, 'POST', '/contact/email:ann@example.com', { json: body });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message });
    expect(stored()).toEqual([]);
  });

  test('by id is refused: a contact needs an email or a phone to be created', async () => {
    const answer = await v2(emulator, 'POST', '/contact/id:12', { json: { firstName: 'Ann' } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('a contact is created by email:<address> or phone:<+E.164>, not by "id:12"; an id is the platform\'s to give');
    expect(stored()).toEqual([]);
  });

  test('a second create of one email is refused; the first contact stays alone', async () => {
    await v2(emulator, 'POST', '/contact/email:ann@example.com', { json: { firstName: 'Ann' } });
    const again = await v2(emulator, 'POST', '/contact/email:ann@example.com', { json: { firstName: 'Ann' } });
    expect(again.status).toBe(400);
    expect(again.body.message).toContain('already exists; update it with PUT, or use create_or_update');
    expect(stored()).toHaveLength(1);
  });

  test('a custom field the workspace lacks is refused when the workspace has a list (allowedFields)', async () => {
    await emulator.close();
    emulator = await startV2Emulator({ allowedFields: ['plan'] });
    const ok = await v2(emulator, 'POST', '/contact/email:ann@example.com', { json: { firstName: 'Ann', countryCode: 'SG', custom_fields: [{ name: 'plan', value: 'gold' }] } });
    expect(ok.status).toBe(200);
    const refused = await v2(emulator, 'POST', '/contact/email:bo@example.com', { json: { firstName: 'Bo', custom_fields: [{ name: 'seats', value: 2 }] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 400, message: 'custom field "seats" does not exist in this workspace; create it in the workspace\'s settings first' });
  });
});

describe('create or update (POST /contact/create_or_update/{identifier})', () => {
  test('creates when no contact holds the identifier, then updates that contact: {contactId} both times', async () => {
    const created = await v2(emulator, 'POST', '/contact/create_or_update/email:ann@example.com', { json: { firstName: 'Ann' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ contactId: 1776025372480910 });
    const updated = await v2(emulator, 'POST', '/contact/create_or_update/email:ann@example.com', { json: { firstName: 'Annie', lastName: 'Lee' } });
    expect(updated.body).toEqual({ contactId: 1776025372480910 });
    expect(stored()).toEqual([expect.objectContaining({ custom_fields: { firstName: 'Annie', email: 'ann@example.com', lastName: 'Lee' } })]);
  });

  test('by an id no contact has is 404: an id cannot create', async () => {
    const answer = await v2(emulator, 'POST', '/contact/create_or_update/id:5', { json: { firstName: 'Ann' } });
    expect(answer.status).toBe(404);
    expect(stored()).toEqual([]);
  });
});

describe('update (PUT /contact/{identifier})', () => {
  test('changes only the fields given, null clears one, and answers {contactId}', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com', { lastName: 'Lee', custom_fields: [{ name: 'plan', value: 'gold' }, { name: 'seats', value: '2' }] });
    const answer = await v2(emulator, 'PUT', `/contact/id:${id}`, { json: { lastName: null, custom_fields: [{ name: 'plan', value: null }, { name: 'seats', value: 4 }] } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ contactId: id });
    expect(stored()[0]?.custom_fields).toEqual({ firstName: 'Ann', email: 'ann@example.com', seats: '4' });
    const read = await v2(emulator, 'GET', `/contact/id:${id}`);
    expect(read.body).toMatchObject({ lastName: null, custom_fields: [{ name: 'seats', value: '4' }] });
  });

  test('needs no firstName, but refuses an empty body and a firstName of null', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com');
    expect((await v2(emulator, 'PUT', `/contact/id:${id}`, { json: { countryCode: 'SG' } })).status).toBe(200);
    const empty = await v2(emulator, 'PUT', `/contact/id:${id}`, { json: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('the body holds no field; give at least one of firstName, lastName, phone, email, language, profilePic, countryCode, custom_fields');
    expect((await v2(emulator, 'PUT', `/contact/id:${id}`, { json: { firstName: null } })).body).toEqual({ code: 400, message: 'firstName cannot be cleared; give a name' });
  });

  test('an email or phone another contact holds is refused, naming that contact', async () => {
    const ann = await createV2Contact(emulator, 'email:ann@example.com', { phone: '+6591234567' });
    const bo = await createV2Contact(emulator, 'email:bo@example.com');
    const email = await v2(emulator, 'PUT', `/contact/id:${bo}`, { json: { email: 'ANN@example.com' } });
    expect(email.status).toBe(400);
    expect(email.body.message).toBe(`email "ANN@example.com" belongs to another contact (id:${ann}); an email identifies one contact of a workspace`);
    const phone = await v2(emulator, 'POST', '/contact/create_or_update/email:cy@example.com', { json: { firstName: 'Cy', phone: '+6591234567' } });
    expect(phone.status).toBe(400);
    expect(stored()).toHaveLength(2);
    // Its own email again is no conflict.
    expect((await v2(emulator, 'PUT', `/contact/id:${ann}`, { json: { email: 'ann@example.com' } })).status).toBe(200);
  });

  test('a body that is not JSON is 400 {code, message}', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com');
    const answer = await v2(emulator, 'PUT', `/contact/id:${id}`, { raw: '{"lastName":' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message: expect.stringContaining('the request body is not valid JSON') });
  });
});

describe('delete (DELETE /contact/{identifier})', () => {
  test('removes the contact and answers {contactId}; it is then 404', async () => {
    const id = await createV2Contact(emulator, 'email:ann@example.com');
    expect((await v2(emulator, 'DELETE', `/contact/id:${id}`)).body).toEqual({ contactId: id });
    expect((await v2(emulator, 'GET', `/contact/id:${id}`)).status).toBe(404);
    expect(stored()).toEqual([]);
  });
});
