import { parseShard, shardOf } from '../../src/pipeline/kinds/shard.js';

describe('shards', () => {
  it('parses I/N and refuses anything else with the fix', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '-1/3']) expect(() => parseShard(bad)).toThrow(/--shard: .* e\.g\. --shard 2\/4/);
  });

  it('puts every key in exactly one of N shards, spread roughly evenly, the same on every call', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) {
      const shard = shardOf(`C${i}`, 4);
      expect(shard).toBe(shardOf(`C${i}`, 4));
      counts[shard - 1]! += 1;
    }
    for (const count of counts) expect(count).toBeGreaterThan(800);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4000);
  });

  it('keyless rows belong to shard 1', () => {
    expect(shardOf('', 7)).toBe(1);
  });
});
