/** A partial input skips the departed step: when the run's input is a part of the export, and why. */
import { partialInputReason, type InputScope } from '../../../src/pipeline/departed/partial-input.js';

const EXPORT = ['customer_id', 'first_name', 'email'];

describe('partialInputReason', () => {
  test.each<[string, InputScope, RegExp | undefined]>([
    ['the export', { markedPartial: false, limit: undefined, header: EXPORT }, undefined],
    ['an --input replacing the export (a nightly pipe): as whole as the export', { markedPartial: false, limit: undefined, header: EXPORT }, undefined],
    ['--partial', { markedPartial: true, limit: undefined, header: EXPORT }, /^the input is marked partial \(--partial\)/],
    ['a rejected file fed back', { markedPartial: false, limit: undefined, header: [...EXPORT, 'error_code', 'error_message'] }, /^the input is a rejected file fed back/],
    ['a rejected file whose message column was deleted in a spreadsheet', { markedPartial: false, limit: undefined, header: [...EXPORT, 'error_code'] }, /^the input is a rejected file fed back/],
    ['--limit', { markedPartial: false, limit: 30, header: EXPORT }, /^the run takes at most 30 rows \(--limit\)/],
    ['--limit larger than the file: still a part, the run did not choose to read it all', { markedPartial: false, limit: 1_000_000, header: EXPORT }, /--limit/],
  ])('%s', (_what, scope, reason) => {
    const said = partialInputReason(scope);
    if (reason === undefined) expect(said).toBeUndefined();
    else {
      expect(said).toMatch(reason);
      expect(said).toMatch(/departed keys are looked at by the next run of the whole export$/);
    }
  });
});
