/**
 * The dispatcher's rules (issue 35: a stage with no test of its own): the rows of one key one
 * after the other in the order given, rows of different keys side by side up to `concurrency`, the
 * reader held back while twice that many wait, and a drain that waits for the last row. The rows
 * are promises the test settles itself: no clock.
 */
import { RowDispatcher } from '../../src/pipeline/run/row-dispatcher.js';

/** A row's work that ends when the test says so. */
function gate(): { promise: Promise<string>; open: (value: string) => void } {
  let open!: (value: string) => void;
  const promise = new Promise<string>((resolve) => (open = resolve));
  return { promise, open };
}

/** Lets the promise callbacks waiting now run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('RowDispatcher', () => {
  it('runs the rows of one key one after the other, in the order given, and other keys beside them', async () => {
    const dispatcher = new RowDispatcher(4);
    const started: string[] = [];
    const done: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const row = (key: string, name: string): void => {
      const g = gate();
      gates.set(name, g);
      dispatcher.dispatch(
        key,
        () => {
          started.push(name);
          return g.promise;
        },
        (outcome) => done.push(outcome),
      );
    };
    row('K1', 'K1-a');
    row('K1', 'K1-b');
    row('K2', 'K2-a');
    await settle();
    // K1's second row waits for its first; K2's runs beside it.
    expect([started, dispatcher.inFlight, dispatcher.busy('K1'), dispatcher.busy('K3')]).toEqual([['K1-a', 'K2-a'], 3, true, false]);
    gates.get('K1-a')!.open('K1-a done');
    await settle();
    expect(started).toEqual(['K1-a', 'K2-a', 'K1-b']);
    gates.get('K2-a')!.open('K2-a done');
    gates.get('K1-b')!.open('K1-b done');
    await dispatcher.drain();
    expect([done, dispatcher.inFlight, dispatcher.busy('K1')]).toEqual([['K1-a done', 'K2-a done', 'K1-b done'], 0, false]);
  });

  it('runs at most `concurrency` rows at once', async () => {
    const dispatcher = new RowDispatcher(2);
    let running = 0;
    let most = 0;
    const gates = [gate(), gate(), gate(), gate()];
    gates.forEach((g, i) =>
      dispatcher.dispatch(
        `K${i}`,
        async () => {
          running++;
          most = Math.max(most, running);
          const value = await g.promise;
          running--;
          return value;
        },
        () => undefined,
      ),
    );
    await settle();
    expect([running, dispatcher.inFlight]).toEqual([2, 4]);
    for (const g of gates) g.open('done');
    await dispatcher.drain();
    expect([most, dispatcher.inFlight]).toEqual([2, 0]);
  });

  it('holds the reader back while twice `concurrency` rows wait, and lets it on as one finishes', async () => {
    const dispatcher = new RowDispatcher(1);
    const gates = [gate(), gate()];
    gates.forEach((g, i) => dispatcher.dispatch(`K${i}`, () => g.promise, () => undefined));
    let roomGiven = false;
    const room = dispatcher.room().then(() => (roomGiven = true));
    await settle();
    expect(roomGiven).toBe(false);
    gates[0]!.open('done');
    await room;
    expect([roomGiven, dispatcher.inFlight]).toEqual([true, 1]);
    gates[1]!.open('done');
    await dispatcher.drain();
  });

  it('drains only once the last row finished', async () => {
    const dispatcher = new RowDispatcher(3);
    const g = gate();
    const finished: string[] = [];
    dispatcher.dispatch('K1', () => g.promise, (outcome) => finished.push(outcome));
    let drained = false;
    const drain = dispatcher.drain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    g.open('K1 done');
    await drain;
    expect([drained, finished]).toEqual([true, ['K1 done']]);
  });
});
