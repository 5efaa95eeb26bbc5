/** renderMessage for a whatsapp_template: each part filled from the row, then checked as WhatsApp would. */
import type { MessageSpec, MessageTemplateSpec } from '../../../src/config/job-types.js';
import { renderMessage } from '../../../src/pipeline/message/message-render.js';

const spec = (template: MessageTemplateSpec): MessageSpec => ({
  when: 'created',
  type: 'whatsapp_template',
  quickReplies: [],
  template,
  forceCancelSurvey: false,
  repeat: false,
});

const WELCOME = { name: 'welcome_{{plan}}', language: '{{lang}}', body: 'Hi {{firstName}}, welcome to {{ plan }}!' };
const ROW = { firstName: 'Ana', plan: 'pro', lang: 'pt_BR' };

describe('renderMessage: whatsapp_template', () => {
  test('fills name, language and body from the row into the one element layout', () => {
    expect(renderMessage(spec(WELCOME), ROW)).toEqual({
      ok: true,
      element: { type: 'whatsapp_template', template: { name: 'welcome_pro', languageCode: 'pt_BR', components: [{ type: 'body', text: 'Hi Ana, welcome to pro!' }] } },
    });
  });

  test.each<[string, Record<string, string>, RegExp]>([
    ['a name WhatsApp cannot have approved', { ...ROW, plan: 'Pro Plus' }, /"welcome_Pro Plus" is not a WhatsApp template name.*\(for this row; fill the columns it uses\)/],
    ['an empty language', { ...ROW, lang: '' }, /"" is not a WhatsApp language code/],
    ['a language that is not a code', { ...ROW, lang: 'Portuguese' }, /"Portuguese" is not a WhatsApp language code/],
  ])('fails the row\'s message with %s, naming the value', (_case, row, error) => {
    const rendered = renderMessage(spec(WELCOME), row);
    expect(rendered.ok).toBe(false);
    expect(!rendered.ok && rendered.error).toMatch(error);
  });

  test('fails the row\'s message when the body is empty for the row', () => {
    expect(renderMessage(spec({ name: 'welcome', language: 'en', body: '{{note}}' }), { note: ' ' })).toEqual({
      ok: false,
      error: 'the template body "{{note}}" is empty for this row; fill the columns it uses',
    });
  });
});
