/**
 * sendRowMessage over the port, with a real state store: what the send decision says is done
 * (docs/reliability.md, "Messages exactly once on v2"). A send an earlier run left maybe sent is
 * looked up through `findSentMessage` only when the surface's sends are readable; a found one is
 * recorded sent with its messageId and not sent; one not found is sent once, its messageId kept.
 */
import type { ContactsApi, SentMessage } from '../../../src/api/contacts-api.js';
import { OutcomeUnknownError, TimeoutError } from '../../../src/api/errors.js';
import { type PlatformSurface } from '../../../src/api/platform-surface.js';
import { V1_SURFACE } from '../../../src/api/v1/surface.js';
import { V2_SURFACE } from '../../../src/api/v2/surface.js';
import type { MessageElement } from '../../../src/api/wire-types.js';
import type { MessageSpec } from '../../../src/config/job-types.js';
import { sendRowMessage } from '../../../src/pipeline/message/send-message.js';
import { messageHash } from '../../../src/state/message-hash.js';
import { StateStore } from '../../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from '../../state/state-test-dir.js';

const SPEC: MessageSpec = { when: 'created', type: 'text', text: 'Hi {{first_name}}', quickReplies: [], forceCancelSurvey: false, repeat: false };
const VALUES = { first_name: 'Ann' };
const HASH = messageHash({ type: 'text', text: 'Hi Ann' });
const LEFT_AT = 1_764_000_000_000;

interface FakePlatform {
  api: ContactsApi;
  sends: string[];
  lookups: Array<[string, MessageElement, number]>;
}

/** The port with only what a text send uses: each send answers `messageId` (or loses its answer), each look-up answers `found`. */
function platform(surface: PlatformSurface, found: SentMessage | undefined, options: { sendAnswer?: 'lost' } = {}): FakePlatform {
  const sends: string[] = [];
  const lookups: Array<[string, MessageElement, number]> = [];
  const api = new Proxy({} as ContactsApi, {
    get(_target, name) {
      if (name === 'surface') return surface;
      if (name === 'sendText')
        return (id: string, _text: string, sendOptions?: { onLeave?: () => void }) => {
          sendOptions?.onLeave?.();
          sends.push(id);
          if (options.sendAnswer === 'lost') return Promise.reject(new OutcomeUnknownError(new TimeoutError({ operation: 'sendMessage', timeoutMs: 30_000 })));
          return Promise.resolve(surface.sendsReadable ? { messageId: `m-${sends.length}` } : undefined);
        };
      if (name === 'findSentMessage')
        return (id: string, message: MessageElement, sinceMs: number) => {
          lookups.push([id, message, sinceMs]);
          return Promise.resolve(found);
        };
      throw new Error(`unexpected call ${String(name)}`);
    },
  });
  return { api, sends, lookups };
}

let temp: StateTestDir;
let store: StateStore;
let now: number;
beforeEach(() => {
  temp = makeStateTestDir();
  now = LEFT_AT;
  store = StateStore.open(temp.statePath(), { job: 'welcome', keyField: 'customerid', now: () => now });
});
afterEach(() => {
  try {
    store.close();
  } finally {
    temp.remove();
  }
});

const send = (api: ContactsApi, dryRun = false) => sendRowMessage(['100'], VALUES, { api, spec: SPEC, state: store, dryRun });

describe('a message an earlier run left maybe sent', () => {
  beforeEach(() => {
    store.recordMessage('100', HASH, 'unknown');
    now += 60_000;
  });

  test('on v2, found in the contact\'s messages: recorded sent with its messageId, reported sent, not sent again', async () => {
    const fake = platform(V2_SURFACE, { messageId: 'm-earlier' });
    const outcome = await send(fake.api);
    expect(outcome.status).toBe('sent');
    expect(outcome.error).toMatch(/^sent by an earlier run at .*messageId m-earlier\); not sent again$/);
    expect(fake.sends).toEqual([]);
    expect(fake.lookups).toEqual([['100', { type: 'text', text: 'Hi Ann' }, LEFT_AT]]);
    expect(store.messageRecord('100', HASH)).toMatchObject({ status: 'sent', messageId: 'm-earlier' });
    // A third run neither reads nor sends.
    const third = platform(V2_SURFACE, undefined);
    expect((await send(third.api)).status).toBe('skipped');
    expect([third.sends, third.lookups]).toEqual([[], []]);
  });

  test('on v2, not in the contact\'s messages: sent once, its messageId kept', async () => {
    const fake = platform(V2_SURFACE, undefined);
    expect(await send(fake.api)).toEqual({ status: 'sent', error: '' });
    expect(fake.sends).toEqual(['100']);
    expect(fake.lookups).toHaveLength(1);
    expect(store.messageRecord('100', HASH)).toMatchObject({ status: 'sent', messageId: 'm-1' });
  });

  test('on v2, not listed and the second send\'s answer lost too: unknown again, marked at its own leaving, sent no third time by this run', async () => {
    const fake = platform(V2_SURFACE, undefined, { sendAnswer: 'lost' });
    expect((await send(fake.api)).status).toBe('unknown');
    expect(fake.sends).toEqual(['100']);
    expect(store.messageRecord('100', HASH)).toMatchObject({ status: 'unknown', recordedAt: LEFT_AT + 60_000 });
  });

  test('on v1: not read, not sent, reported skipped with its reason (at most once, as before)', async () => {
    const fake = platform(V1_SURFACE, { messageId: 'never asked' });
    const outcome = await send(fake.api);
    expect(outcome.status).toBe('skipped');
    expect(outcome.error).toMatch(/^not sent again: an earlier run sent this message at /);
    expect([fake.sends, fake.lookups]).toEqual([[], []]);
    expect(store.messageRecord('100', HASH)).toMatchObject({ status: 'unknown', messageId: null });
  });

  test('a dry run on v2 reads nothing and sends nothing', async () => {
    const fake = platform(V2_SURFACE, { messageId: 'm-earlier' });
    expect((await send(fake.api, true)).status).toBe('sent');
    expect([fake.sends, fake.lookups]).toEqual([[], []]);
    expect(store.messageRecord('100', HASH)).toMatchObject({ status: 'unknown' });
  });
});

test('a v2 send keeps the messageId its answer gave; a v1 send has none', async () => {
  await send(platform(V2_SURFACE, undefined).api);
  expect(store.messageRecord('100', HASH)).toMatchObject({ status: 'sent', messageId: 'm-1' });
  const other = sendRowMessage(['200'], VALUES, { api: platform(V1_SURFACE, undefined).api, spec: SPEC, state: store, dryRun: false });
  expect((await other).status).toBe('sent');
  expect(store.messageRecord('200', HASH)).toMatchObject({ status: 'sent', messageId: null });
});
