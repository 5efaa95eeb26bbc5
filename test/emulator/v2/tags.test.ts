/** v2's tag calls: a JSON list of 1 to 10 names of at most 255 characters; answers {contactId}. */
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { CHANNEL_TOKEN, createV2Contact, startV2Emulator, v2 } from './v2-http.js';

let emulator: RunningEmulator;
let id: number;
beforeEach(async () => {
  emulator = await startV2Emulator();
  id = await createV2Contact(emulator, 'email:ann@example.com');
});
afterEach(async () => {
  await emulator.close();
});

const tags = () => emulator.contacts(CHANNEL_TOKEN)[0]?.tags;
const ten = Array.from({ length: 10 }, (_, i) => `t${i}`);

describe('tags (POST and DELETE /contact/{identifier}/tag)', () => {
  test('adds 10 tags in one call and removes some, answering {contactId} each time', async () => {
    const added = await v2(emulator, 'POST', `/contact/id:${id}/tag`, { json: ten });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ contactId: id });
    const removed = await v2(emulator, 'DELETE', '/contact/email:ann@example.com/tag', { json: ['t0', 't9', 'absent'] });
    expect(removed.body).toEqual({ contactId: id });
    expect(tags()).toEqual(['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']);
  });

  test.each([
    ['11 tags', [...ten, 't10'], 'the body holds 11 tags; give 1 to 10 a call'],
    ['no tag', [], 'the body holds 0 tags; give 1 to 10 a call'],
    ['a tag of 256 characters', ['x'.repeat(256)], 'tag [0] must be a string of 1 to 255 characters, got a string'],
    ['an object in place of the list', { tags: ['a'] }, 'the body must be a JSON list of tag names, got a object'],
  ])('refuses %s with 400, changing nothing', async (_case, body, message) => {
    const answer = await v2(emulator, 'POST', `/contact/id:${id}/tag`, { json: body });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 400, message });
    expect(tags()).toEqual([]);
  });

  test('a tag of exactly 255 characters is taken', async () => {
    expect((await v2(emulator, 'POST', `/contact/id:${id}/tag`, { json: ['x'.repeat(255)] })).status).toBe(200);
  });
});
