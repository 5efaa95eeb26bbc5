/**
 * The two columns rejected.csv adds to the input's own: why each row failed. They make a fed-back
 * file recognisable (a part of the export, not all of it: the departed step must not run on it),
 * no job reads them, and the next rejected file replaces them instead of adding them again, so a
 * file can go round the loop any number of times. Either one is enough to recognise the file: a
 * person fixing it in a spreadsheet may delete the message column.
 */

export const ERROR_COLUMNS = ['error_code', 'error_message'] as const;

export function isErrorColumn(name: string): boolean {
  return (ERROR_COLUMNS as readonly string[]).includes(name);
}

/** A rejected file fed back as input: its header has an error column. */
export function isFedBackFile(header: readonly string[]): boolean {
  return header.some(isErrorColumn);
}
