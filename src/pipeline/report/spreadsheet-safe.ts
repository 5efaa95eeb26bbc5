/**
 * Report cells are opened in spreadsheets: a cell starting with `=`, `+`, `-` or `@` (or a tab or
 * carriage return) may be run as a formula (CSV injection). Such cells get a leading `'`, which
 * spreadsheets show as text. Plain numbers and phone numbers (`-5`, `+6591234567`) are left as
 * they are: they cannot run anything, and a phone number must stay feedable as input.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?[0-9][0-9 .,()-]*$/;

export function spreadsheetSafe(value: string): string {
  if (!FORMULA_START.test(value) || PLAIN_NUMBER.test(value)) return value;
  return `'${value}`;
}
