/**
 * The v2 client's delete and merge (issue 46) against a recording server: the paths and bodies,
 * a delete retried as an update is (a 404 on a retry is the lost first attempt's deletion), and a
 * merge never sent twice blindly: a lost answer is settled by reading both ids back first.
 */
import { V2Client, type V2ClientOptions } from '../../../src/api/v2/client.js';
import { MalformedResponseError, NoSuchContactError, OutcomeUnknownError } from '../../../src/api/errors.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import { recordingServer, type RecordedAnswer, type RecordingServer } from '../../helpers/recording-server.js';
import { RecordingLimits } from '../../helpers/v2-limits.js';

const TOKEN = 'wt-46d3-8a1f-c7e2';
let server: RecordingServer;
let answers: RecordedAnswer[];

beforeEach(async () => {
  answers = [];
  server = await recordingServer({ path: '/v2', answer: () => answers.shift() ?? { status: 500, body: { code: 500, message: 'no answer queued' } } });
});
afterEach(async () => {
  await server.close();
});

function client(options: Partial<V2ClientOptions> = {}): V2Client {
  return new V2Client({ baseUrl: server.url, token: TOKEN, limits: new RecordingLimits(), timeoutMs: 2_000, retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 }, sleep: () => Promise.resolve(), ...options });
}

const sent = (): string[] => server.requests.map((request) => `${request.method} ${request.path}${request.body === '' ? '' : ` ${request.body}`}`);
const contact = (id: number) => ({ body: { id, firstName: 'Ann', custom_fields: [], tags: [], created_at: 1_700_000_000 } });
const notFound = { status: 404, body: { code: 404, message: 'Contact not found' } };

describe('the surfaces say what they can', () => {
  test('v2 deletes and merges; v1 does neither', () => {
    expect([V2_SURFACE.deletes, V2_SURFACE.merges, V1_SURFACE.deletes, V1_SURFACE.merges]).toEqual([true, true, false, false]);
  });
});

describe('V2Client.deleteContact', () => {
  test('DELETE /contact/id:<id>, counted as an update (its endpoint apart)', async () => {
    answers.push({ body: { contactId: 12 } });
    const v2 = client();
    await v2.deleteContact('12');
    expect(sent()).toEqual(['DELETE /v2/contact/id:12']);
    expect(v2.stats.byOperation.updateContact.requests).toBe(1);
    expect(v2.stats.byEndpoint?.()).toEqual({ 'DELETE /contact/{identifier}': 1 });
  });

  test('a 5xx is retried; a 404 on the retry means the first attempt deleted it', async () => {
    answers.push({ status: 502, body: 'bad gateway' }, notFound);
    await client().deleteContact('12');
    expect(sent()).toEqual(['DELETE /v2/contact/id:12', 'DELETE /v2/contact/id:12']);
  });

  test('a 404 on the first attempt: no such contact', async () => {
    answers.push(notFound);
    await expect(client().deleteContact('12')).rejects.toBeInstanceOf(NoSuchContactError);
  });
});

describe('V2Client.mergeContacts', () => {
  test('POST /contact/merge with the two ids and the fields; the survivor is the one the answer names', async () => {
    answers.push({ body: { contactId: 31 } });
    const merged = await client().mergeContacts(['12', '31'], { firstName: 'Ann', plan: 'pro' });
    expect(merged).toEqual({ survivorId: '31', settledByRead: false });
    expect(server.requests.map((request) => [request.method, request.path])).toEqual([['POST', '/v2/contact/merge']]);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ contactIds: [12, 31], firstName: 'Ann' });
  });

  test('an answer naming neither contact is malformed', async () => {
    answers.push({ body: { contactId: 99 } });
    await expect(client().mergeContacts(['12', '31'], {})).rejects.toBeInstanceOf(MalformedResponseError);
  });

  test('a lost answer is read back: one contact gone and one left is the merge done, the one left its survivor, never sent again', async () => {
    answers.push({ status: 502, body: 'bad gateway' }, notFound, contact(31));
    expect(await client().mergeContacts(['12', '31'], {})).toEqual({ survivorId: '31', settledByRead: true });
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v2/contact/merge', 'GET /v2/contact/id:12', 'GET /v2/contact/id:31']);
  });

  test('a lost answer with both contacts still there is sent once more (a retry); lost again, an unknown outcome', async () => {
    answers.push({ status: 502, body: 'bad gateway' }, contact(12), contact(31), { body: { contactId: 12 } });
    const v2 = client();
    expect(await v2.mergeContacts(['12', '31'], {})).toEqual({ survivorId: '12', settledByRead: true });
    expect(v2.stats.byOperation.updateContact).toMatchObject({ retries: 1 });
    answers.push({ status: 502, body: 'bad gateway' }, contact(12), contact(31), { status: 502, body: 'bad gateway' }, contact(12), contact(31));
    await expect(client().mergeContacts(['12', '31'], {})).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.requests.filter((request) => request.path === '/v2/contact/merge')).toHaveLength(4);
  });

  test('a lost answer whose contacts cannot be read stays unknown, never sent again', async () => {
    answers.push({ status: 502, body: 'bad gateway' }, { status: 401, body: { code: 401, message: 'no' } });
    await expect(client().mergeContacts(['12', '31'], {})).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.requests.filter((request) => request.path === '/v2/contact/merge')).toHaveLength(1);
  });
});
