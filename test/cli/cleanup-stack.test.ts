/**
 * The CLI's cleanup stack (src/cli/cleanup-stack.ts): what a command took is released in the
 * reverse order, each release awaited before the next, on a success and on a throw alike, and a
 * release that fails neither stops the others nor hides why the command stopped.
 */
import { CleanupStack } from '../../src/cli/cleanup-stack.js';

function recordingStack() {
  const suppressed: unknown[] = [];
  const stack = new CleanupStack((error) => suppressed.push(error));
  const released: string[] = [];
  return { stack, suppressed, released };
}

describe('CleanupStack', () => {
  it('releases in the reverse order of deferral, each async release awaited before the next', async () => {
    const { stack, released } = recordingStack();
    let finishEmulator: () => void = () => undefined;
    stack.defer(() => void released.push('input'));
    stack.defer(
      () =>
        new Promise<void>((resolve) => {
          released.push('emulator: closing');
          finishEmulator = () => {
            released.push('emulator: closed');
            resolve();
          };
        }),
    );
    stack.defer(async () => {
      await Promise.resolve();
      released.push('locks');
    });

    const releasing = stack.release();
    // Let every ready microtask run: the input must still wait for the emulator's close.
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toEqual(['locks', 'emulator: closing']);
    finishEmulator();
    await releasing;

    expect(released).toEqual(['locks', 'emulator: closing', 'emulator: closed', 'input']);
  });

  it('releaseAfter: releases after the body, and returns what the body returned', async () => {
    const { stack, released } = recordingStack();
    const result = await stack.releaseAfter(() => {
      stack.defer(() => void released.push('first taken'));
      stack.defer(() => void released.push('second taken'));
      released.push('body done');
      return Promise.resolve(7);
    });
    expect(result).toBe(7);
    expect(released).toEqual(['body done', 'second taken', 'first taken']);
  });

  it('releaseAfter: a throw in the body releases everything taken, then rethrows the body\'s error', async () => {
    const { stack, released, suppressed } = recordingStack();
    const stopped = new Error('the jobs file is not valid');
    await expect(
      stack.releaseAfter(() => {
        stack.defer(() => void released.push('emulator'));
        stack.defer(() => void released.push('locks'));
        return Promise.reject(stopped);
      }),
    ).rejects.toBe(stopped);
    expect(released).toEqual(['locks', 'emulator']);
    expect(suppressed).toEqual([]);
  });

  it('a failing release does not stop the others; the first failure is thrown, the later ones are suppressed', async () => {
    const { stack, released, suppressed } = recordingStack();
    const limiters = new Error('limiters did not stop');
    const locks = new Error('lock file not removed');
    stack.defer(() => void released.push('input'));
    stack.defer(() => {
      throw locks;
    });
    stack.defer(() => void released.push('emulator'));
    stack.defer(async () => {
      await Promise.resolve();
      throw limiters;
    });

    await expect(stack.release()).rejects.toBe(limiters);

    expect(released).toEqual(['emulator', 'input']);
    expect(suppressed).toEqual([locks]);
  });

  it('when the body and a release both fail, the body\'s failure is thrown and the release\'s suppressed', async () => {
    const { stack, released, suppressed } = recordingStack();
    const stopped = new Error('job aborted');
    const closing = new Error('emulator did not close');
    await expect(
      stack.releaseAfter(() => {
        stack.defer(() => void released.push('locks'));
        stack.defer(() => {
          throw closing;
        });
        return Promise.reject(stopped);
      }),
    ).rejects.toBe(stopped);
    expect(released).toEqual(['locks']);
    expect(suppressed).toEqual([closing]);
  });

  it('releases once: a second release does nothing, and a deferral after it is refused', async () => {
    const { stack, released } = recordingStack();
    stack.defer(() => void released.push('locks'));
    await stack.release();
    await stack.release();
    expect(released).toEqual(['locks']);
    expect(() => stack.defer(() => undefined)).toThrow('CleanupStack.defer: the stack was already released');
  });
});
