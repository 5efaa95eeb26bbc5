import { StartSpacing } from '../../src/api/start-spacing.js';

function recording(clock: { now: number }) {
  const waits: number[] = [];
  const spacing = new StartSpacing(
    50,
    () => clock.now,
    (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  );
  return { spacing, waits };
}

describe('StartSpacing', () => {
  it('spreads requests released together (as after an event-loop stall) minTime apart', async () => {
    const clock = { now: 1_000 };
    const { spacing, waits } = recording(clock);
    await Promise.all([spacing.reserve(), spacing.reserve(), spacing.reserve()]);
    expect(waits).toEqual([50, 100]);
  });

  it('waits only for what is left of the spacing, and not at all once it has passed', async () => {
    const clock = { now: 0 };
    const { spacing, waits } = recording(clock);
    await spacing.reserve();
    clock.now = 30;
    await spacing.reserve();
    clock.now = 500;
    await spacing.reserve();
    expect(waits).toEqual([20]);
  });

  it('follows a stricter spacing set later', async () => {
    const clock = { now: 0 };
    const { spacing, waits } = recording(clock);
    await spacing.reserve();
    spacing.minTime = 80;
    await spacing.reserve();
    expect(waits).toEqual([80]);
  });
});
