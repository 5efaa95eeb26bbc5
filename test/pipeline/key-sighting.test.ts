import { KeySighting } from '../../src/pipeline/kinds/key-sighting.js';

describe('KeySighting', () => {
  it('tells a repeated key from a new one, across 100,000 distinct keys without a false repeat', () => {
    const keys = new KeySighting();
    let repeats = 0;
    for (let i = 0; i < 100_000; i++) if (keys.seenBefore(`C${i}`)) repeats++;
    expect(repeats).toBe(0);
    expect(keys.seenBefore('C42')).toBe(true);
    expect(keys.seenBefore('c42')).toBe(false);
    expect(keys.seenBefore('')).toBe(false);
    expect(keys.seenBefore('')).toBe(true);
  });

  it('answers whether a key was seen without recording it', () => {
    const keys = new KeySighting();
    keys.seenBefore('C1');
    expect(keys.has('C1')).toBe(true);
    expect(keys.has('C2')).toBe(false);
    expect(keys.has('C2')).toBe(false);
    expect(keys.seenBefore('C2')).toBe(false);
  });
});

describe('KeySighting.sightingsBefore', () => {
  it('counts 0, 1, then 2 for any later sighting', () => {
    const keys = new KeySighting();
    expect(['K', 'K', 'K', 'K', 'L'].map((key) => keys.sightingsBefore(key))).toEqual([0, 1, 2, 2, 0]);
  });
});
