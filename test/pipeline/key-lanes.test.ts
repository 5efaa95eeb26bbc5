import { KeyLanes } from '../../src/pipeline/run/key-lanes.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('KeyLanes', () => {
  it('runs tasks of one key in order and never at the same time, other keys alongside', async () => {
    const lanes = new KeyLanes();
    const events: string[] = [];
    const gate = deferred();
    const first = lanes.run('a', async () => {
      events.push('a1 start');
      await gate.promise;
      events.push('a1 end');
    });
    const second = lanes.run('a', () => {
      events.push('a2 start');
      return Promise.resolve();
    });
    const other = lanes.run('b', () => {
      events.push('b1');
      return Promise.resolve();
    });
    await other;
    expect(events).toEqual(['a1 start', 'b1']);
    gate.resolve();
    await Promise.all([first, second]);
    expect(events).toEqual(['a1 start', 'b1', 'a1 end', 'a2 start']);
    await new Promise((r) => setImmediate(r));
    expect(lanes.size).toBe(0);
  });

  it('a failed task does not stop the next of its key', async () => {
    const lanes = new KeyLanes();
    const failed = lanes.run('k', () => Promise.reject(new Error('boom')));
    const next = lanes.run('k', () => Promise.resolve('ran'));
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('says whether a key has a task running or waiting, until its last one settled', async () => {
    const lanes = new KeyLanes();
    const gate = deferred();
    const task = lanes.run('a', () => gate.promise);
    expect([lanes.has('a'), lanes.has('b')]).toEqual([true, false]);
    gate.resolve();
    await task;
    await new Promise((r) => setImmediate(r));
    expect(lanes.has('a')).toBe(false);
  });
});
