import { whatsappTemplateElement } from '../../src/api/wire-types.js';
import { messageHash } from '../../src/state/message-hash.js';
import { StateStore } from '../../src/state/state-store.js';
import { makeStateTestDir, type StateTestDir } from './state-test-dir.js';

let temp: StateTestDir;
let store: StateStore;
beforeEach(() => {
  temp = makeStateTestDir();
  store = StateStore.open(temp.statePath(), { job: 'welcome', keyField: 'customerid' });
});
afterEach(() => {
  try {
    store.close();
  } finally {
    temp.remove();
  }
});

const welcome = messageHash({ type: 'text', text: 'Welcome, Ann!' });

describe('messages', () => {
  test('a message recorded as sent is known for that contact and that message only', () => {
    store.recordMessage('100', welcome, 'sent');
    expect(store.messageSent('100', welcome)).toBe(true);
    expect(store.messageSent('200', welcome)).toBe(false);
    expect(store.messageSent('100', messageHash({ type: 'text', text: 'Welcome, Bob!' }))).toBe(false);
  });

  test('a message whose delivery is unknown also counts as sent, across a reopen', () => {
    store.recordMessage('100', welcome, 'unknown');
    store.close();
    store = StateStore.open(temp.statePath(), { job: 'welcome', keyField: 'customerid' });
    expect(store.messageSent('100', welcome)).toBe(true);
    expect(store.summary().messages).toBe(1);
  });

  test('a message forgotten after a sure failure may be sent again', () => {
    store.recordMessage('100', welcome, 'unknown');
    store.forgetMessage('100', welcome);
    expect(store.messageSent('100', welcome)).toBe(false);
  });

  test('recording the same message again keeps one record', () => {
    store.recordMessage('100', welcome, 'unknown');
    store.recordMessage('100', welcome, 'sent');
    expect(store.summary().messages).toBe(1);
  });

  test('a v2 send keeps its messageId across a reopen; a v1 send and a maybe-sent mark have none', () => {
    store.recordMessage('100', welcome, 'unknown');
    expect(store.messageRecord('100', welcome)).toMatchObject({ status: 'unknown', messageId: null });
    store.recordMessage('100', welcome, 'sent', 'm-41');
    store.recordMessage('200', welcome, 'sent');
    store.close();
    store = StateStore.open(temp.statePath(), { job: 'welcome', keyField: 'customerid' });
    expect(store.messageRecord('100', welcome)).toMatchObject({ status: 'sent', messageId: 'm-41' });
    expect(store.messageRecord('200', welcome)).toMatchObject({ status: 'sent', messageId: null });
  });
});

describe('messageHash', () => {
  test('is the same for the same message and differs with its text, url, type, replies, or template name, language and body', () => {
    expect(messageHash({ type: 'text', text: 'Hi' })).toBe(messageHash({ type: 'text', text: 'Hi' }));
    const template = { name: 'welcome', languageCode: 'en', body: 'Hi' };
    expect(messageHash(whatsappTemplateElement(template))).toBe(messageHash(whatsappTemplateElement({ ...template })));
    const hashes = [
      messageHash({ type: 'text', text: 'Hi' }),
      messageHash({ type: 'text', text: 'Hi!' }),
      messageHash({ type: 'image', url: 'https://example.com/a.png' }),
      messageHash({ type: 'file', url: 'https://example.com/a.png' }),
      messageHash({ type: 'quick_reply', title: 'Hi', replies: ['Yes', 'No'] }),
      messageHash({ type: 'quick_reply', title: 'Hi', replies: ['No', 'Yes'] }),
      messageHash(whatsappTemplateElement({ name: 'welcome', languageCode: 'en', body: 'Hi' })),
      messageHash(whatsappTemplateElement({ name: 'welcome', languageCode: 'en', body: 'Hi!' })),
      messageHash(whatsappTemplateElement({ name: 'welcome', languageCode: 'pt_BR', body: 'Hi' })),
      messageHash(whatsappTemplateElement({ name: 'welcome_v2', languageCode: 'en', body: 'Hi' })),
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});
