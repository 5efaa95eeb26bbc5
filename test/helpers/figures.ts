/**
 * The figures a reliability test measured (calls, faults, retries, lost rows, duplicates): quiet
 * on success, so `npm test` prints nothing a reader must skip; `TEST_FIGURES=1 npm test` shows them
 * (docs/reliability.md quotes them).
 */
export function reportFigures(line: string): void {
  if (process.env.TEST_FIGURES === '1') console.log(line);
}
