/**
 * Rows that share a key run one after the other, in file order: two rows of one new key must
 * never both search, find nothing and create. Rows of different keys run side by side.
 */
export class KeyLanes {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of the same key has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Whether a task of the key is running or waiting (or has just settled). */
  has(key: string): boolean {
    return this.tails.has(key);
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.tails.size;
  }
}
