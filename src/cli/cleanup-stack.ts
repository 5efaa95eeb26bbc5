/**
 * What a command holds (the saved input, the embedded emulator, the job locks, the report folder,
 * the limiters, the signal handlers, a job's state store), released from one place, in the
 * reverse of the order it was taken, however the command ends: a success, a throw, a signal.
 *
 * The part of `AsyncDisposableStack` the CLI needs. That global is Node 24's; Node 22.12, which
 * package.json's `engines` still allow, has `Symbol.asyncDispose` but not the stack, and a
 * polyfill would be a dependency for twenty lines (docs/decisions.md). It differs on purpose in
 * one thing: the failure that ends the command is the body's, or else the first release's, as
 * itself (its code gives the exit code, `cli/failure.ts`), never wrapped in a `SuppressedError`;
 * the failures behind it go to `onSuppressed`, to be logged.
 */
export type Release = () => void | Promise<void>;

export class CleanupStack {
  readonly #releases: Release[] = [];
  #released = false;

  /** @param onSuppressed told of each failure that another failure, thrown in its place, hides */
  constructor(private readonly onSuppressed: (error: unknown) => void) {}

  /**
   * `release` runs when the stack is released, before everything deferred earlier. Defer it just
   * before taking what it releases, so that a step that takes several things and fails halfway
   * still releases those it took.
   */
  defer(release: Release): void {
    // A release deferred after the stack was released would never run: a leak, and a bug.
    if (this.#released) throw new Error('CleanupStack.defer: the stack was already released');
    this.#releases.push(release);
  }

  /**
   * Runs every release, the last deferred first, each awaited before the next, each one even when
   * one before it failed. A second call does nothing.
   * @throws the first failure, once all have run; the others go to `onSuppressed`
   */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const failures: unknown[] = [];
    for (const release of this.#releases.splice(0).reverse()) {
      try {
        await release();
      } catch (error) {
        failures.push(error);
      }
    }
    for (const failure of failures.slice(1)) this.onSuppressed(failure);
    if (failures.length > 0) throw failures[0];
  }

  /**
   * Runs `body`, then releases the stack, however `body` ended. When both fail, `body`'s failure
   * is thrown (it is why the command stopped) and the release's goes to `onSuppressed`.
   */
  async releaseAfter<T>(body: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await body();
    } catch (error) {
      await this.release().catch((releaseFailure: unknown) => this.onSuppressed(releaseFailure));
      throw error;
    }
    await this.release();
    return result;
  }
}
