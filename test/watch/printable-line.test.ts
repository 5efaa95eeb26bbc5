import { printableLine } from '../../src/watch/printable-line.js';

describe('printableLine', () => {
  it('keeps the first line of text, without terminal escapes or control characters', () => {
    expect(printableLine('\u001b[2J\u001b[31mpush failed with status 500, \u001b]0;owned\u0007boom\u0000!\n<html>\n')).toBe('push failed with status 500, boom!');
  });

  it('cuts a long line, and reads no more of a huge text than it shows', () => {
    const huge = `push failed with status 500, ${'x'.repeat(5 * 1024 * 1024)}`;
    expect(printableLine(huge)).toBe(`${huge.slice(0, 200)}...`);
    expect(printableLine('short', 3)).toBe('sho...');
  });

  it('skips blank leading lines, and is empty for text with nothing printable', () => {
    expect(printableLine('\r\n  \nsecond\nthird')).toBe('second');
    expect(printableLine('\u001b[0m\u0007')).toBe('');
  });
});
