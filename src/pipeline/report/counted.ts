/**
 * A count and its noun, singular for one: `1 row`, `2 rows`, `0 rows`. Every sentence a person
 * reads (the console, the reports, the notify text) counts with it, so none says "1 rows".
 */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
