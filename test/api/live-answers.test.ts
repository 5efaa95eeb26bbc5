/**
 * Issue 28: the client against the emulator answering as the live service is known to: values
 * that are JSON booleans and numbers, and an update answered with an id of another form.
 */
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { testClient } from './support/test-client.js';

const TOKEN = 'demo-token';
let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('ApiClient and the live answers', () => {
  it('reads a contact whose values are booleans and numbers as their string form (get and search)', async () => {
    emulator = await startEmulator({ rateLimits: false, valueTypes: 'typed' });
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { customerid: '42', isLead: 'true', timezone: '5', zip: '007' } }]);
    const client = testClient({ baseUrl: emulator.url });
    const fields = { customerid: '42', isLead: 'true', timezone: '5', zip: '007' };
    await expect(client.getContact(stored!.id)).resolves.toEqual(expect.objectContaining({ id: stored!.id, custom_fields: fields }));
    const page = await client.searchContactsPage('customerid', '42');
    expect(page.items).toEqual([expect.objectContaining({ id: stored!.id, custom_fields: fields })]);
  });

  it('takes an update answered with a cus_ id as done, and changes the contact it named', async () => {
    emulator = await startEmulator({ rateLimits: false, updateAnswerId: 'cus' });
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { firstName: 'Ann' } }]);
    const client = testClient({ baseUrl: emulator.url });
    await expect(client.updateContact(stored!.id, { firstName: 'Anne' })).resolves.toBeUndefined();
    await expect(client.getContact(stored!.id)).resolves.toEqual(expect.objectContaining({ custom_fields: { firstName: 'Anne' } }));
  });
});
