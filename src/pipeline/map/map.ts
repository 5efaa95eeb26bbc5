/**
 * The map stage, pure: a CSV row -> what the platform should hold for that contact
 * (`ContactDraft`), or the reason the row cannot be used (`RowError`). No I/O, no API call.
 *
 * Values are written as the file has them after the field's transforms: a value starting with
 * `=`, `+`, `-` or `@` is left alone here (the platform gets the real value); only the reports
 * neutralise such values for spreadsheets.
 */
import type { FieldSpec, Job, WriteRule } from '../../config/job-types.js';
import type { ContactDraft, FieldSkip, MapResult, PhoneExtension } from './contact-draft.js';
import type { RowErrorCode } from '../report/error-codes.js';
import type { SourceRecord, SourceRow } from '../source/source-record.js';
import { applyTransforms, normaliseEmail, normalisePhone, type TransformResult } from './transforms.js';

/** Between the problems of one row in its message (each problem's own text holds `;`). */
export const PROBLEM_SEPARATOR = '. Also: ';

/** `{{ column }}`, as config/template-placeholders.ts reads it. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * A row with several problems (a bad key and a bad email, two bad fields) fails with all of them
 * at once, so one pass through rejected.csv fixes it: the code is the first problem's, the message
 * names each, in the order the key and then the job's fields come.
 */
export function mapRow(row: SourceRow, job: Job): MapResult {
  const key = mapKey(row, job);
  let problems: Array<{ code: RowErrorCode; message: string }> | undefined;
  if (!key.ok) problems = [key.error];

  const fields: Record<string, string> = {};
  let fieldsSkipped: FieldSkip[] | undefined;
  let phoneExtensions: PhoneExtension[] | undefined;
  let writeRules: Record<string, WriteRule> | undefined;
  for (const spec of job.fields) {
    const result = applyTransforms(rawValue(row, spec), spec.transforms, (column) => row.values[column]);
    if (!result.ok && spec.onInvalid === 'skip-field') {
      // The platform keeps what it holds for this field; the rest of the row is written.
      (fieldsSkipped ??= []).push({ field: spec.name, code: result.code, reason: result.reason });
      continue;
    }
    if (!result.ok) {
      (problems ??= []).push({ code: result.code, message: `${where(row, spec)}: ${result.reason}` });
      continue;
    }
    const extensionField = phoneExtensionField(spec);
    if (extensionField !== undefined) {
      // `extensionField`: the extension is a value of its own, emptied like any other when the number has none.
      if (result.extension !== undefined) fields[extensionField] = result.extension;
      else if ((spec.onEmpty ?? (job.emptyValues === 'clear' ? 'clear' : 'keep')) === 'clear') fields[extensionField] = '';
    } else if (result.extension !== undefined) {
      // E.164 has no extension: the number is written and the extension named (results.csv's warnings).
      (phoneExtensions ??= []).push({ field: spec.name, extension: result.extension, value: rawValue(row, spec) });
    }
    let value = result.value;
    if (value === '' && spec.default !== undefined) value = spec.default;
    if (value !== '') fields[spec.name] = value;
    else if ((spec.onEmpty ?? (job.emptyValues === 'clear' ? 'clear' : 'keep')) === 'clear') fields[spec.name] = '';
    if (spec.write !== undefined) (writeRules ??= {})[spec.name] = spec.write;
  }

  if (problems !== undefined) return fail(row, problems[0]!.code, problems.map((problem) => problem.message).join(PROBLEM_SEPARATOR));
  // Only the key can have failed with no problem listed: narrowed here for the compiler.
  if (!key.ok) return key;

  const tagsToAdd = rowTags(row, job);
  const added = new Set(tagsToAdd);
  const caseVariants = tagCaseVariants(tagsToAdd);
  // A tag both added and removed stays: the row asks for it explicitly (column or static).
  const tagsToRemove = unique(job.tags.remove.map((tag) => tag.trim())).filter((tag) => tag !== '' && !added.has(tag));

  // Object.assign onto a null-prototype object: a column named __proto__ stays a value, and it is
  // several times faster than a spread with a computed key (the hot spot of a 1M-row file).
  const templateValues = Object.assign(Object.create(null) as Record<string, string>, row.values, fields);
  templateValues[job.key.field] = key.value;
  const draft: ContactDraft = { line: row.line, key: key.value, keyField: job.key.field, fields, tagsToAdd, tagsToRemove, templateValues };
  if (fieldsSkipped !== undefined) draft.fieldsSkipped = fieldsSkipped;
  if (phoneExtensions !== undefined) draft.phoneExtensions = phoneExtensions;
  if (writeRules !== undefined) draft.writeRules = writeRules;
  if (caseVariants !== undefined) draft.tagCaseVariants = caseVariants;
  return { ok: true, draft };
}

/**
 * The key `mapRow` would give the row, or undefined when `mapRow` would fail it; cheaper: only the
 * key and the fields whose transforms can fail (email, phone) are computed. The first pass of
 * `onDuplicateRows` (source/repeated-keys.ts) reads every row of the file with it.
 */
export function keyOfMappableRow(row: SourceRow, job: Job): string | undefined {
  const key = mapKey(row, job);
  if (!key.ok) return undefined;
  for (const spec of job.fields) {
    // A field with onInvalid: skip-field never fails its row.
    if (spec.onInvalid === 'skip-field' || !spec.transforms.some((transform) => transform.kind === 'email' || transform.kind === 'phone')) continue;
    if (!applyTransforms(rawValue(row, spec), spec.transforms, (column) => row.values[column]).ok) return undefined;
  }
  return key.value;
}

/**
 * The key: the cell trimmed, and normalised like the platform stores it when the key field is
 * `email` (lowercase) or `phone` (E.164, so a number must carry its country code: the key has no
 * FieldSpec to give a default country). Other key fields are matched exactly as written.
 */
export function mapKey(row: SourceRow, job: Job): { ok: true; value: string } | Extract<MapResult, { ok: false }> {
  const column = job.key.column;
  const cell = (row.values[column] ?? '').trim();
  if (cell === '') {
    return fail(row, 'KEY_MISSING', `line ${row.line}: the key column ${JSON.stringify(column)} is empty; every row needs a key value to find its contact`);
  }
  let result: TransformResult = { ok: true, value: cell };
  if (job.key.field === 'email') result = normaliseEmail(cell);
  else if (job.key.field === 'phone') result = normalisePhone(cell);
  if (!result.ok) return fail(row, result.code, `line ${row.line}, column ${JSON.stringify(column)} (the key): ${result.reason}`);
  // A phone key with an extension is refused: the switchboard's number would make every extension one key.
  if (result.extension !== undefined) {
    return fail(
      row,
      'PHONE_EXTENSION',
      `line ${row.line}, column ${JSON.stringify(column)} (the key): ${JSON.stringify(cell)} has the extension ${JSON.stringify(result.extension)}, and a phone key is the number alone (E.164: ${result.value}), which every extension of it shares; write the number without the extension, or key the job on another column`,
    );
  }
  return { ok: true, value: result.value };
}

/** The field the phone transform of `spec` writes a number's extension to (`extensionField`), if any. */
function phoneExtensionField(spec: FieldSpec): string | undefined {
  for (const transform of spec.transforms) if (transform.kind === 'phone' && transform.extensionField !== undefined) return transform.extensionField;
  return undefined;
}

/**
 * The key cell of a record that failed, trimmed, as the reports show it: a row the reader could not
 * split (too many cells, bad bytes) shows the cell under the key column when it got that far.
 * `keyIndex` is the key column's place in the header (-1 when absent).
 */
export function keyCellOf(record: SourceRecord, job: Job, keyIndex: number): string {
  const cell = record.kind === 'row' ? record.values[job.key.column] : keyIndex < 0 ? undefined : record.cells[keyIndex];
  return cell?.trim() ?? '';
}

function rawValue(row: SourceRow, spec: FieldSpec): string {
  const source = spec.source;
  switch (source.kind) {
    case 'column':
      return row.values[source.column] ?? '';
    case 'value':
      return source.value;
    case 'template':
      return source.template.replace(PLACEHOLDER, (_match, name: string) => (row.values[name.trim()] ?? '').trim());
  }
}

/** Where a field's value came from, for a message: line, column (or template/constant), field. */
function where(row: SourceRow, spec: FieldSpec): string {
  const source = spec.source;
  if (source.kind === 'column') return `line ${row.line}, column ${JSON.stringify(source.column)} (field ${spec.name})`;
  if (source.kind === 'template') return `line ${row.line}, field ${spec.name} (template ${JSON.stringify(source.template)})`;
  return `line ${row.line}, field ${spec.name} (constant value)`;
}

/**
 * The column's tags split and trimmed (lowercased with `tags.case: lower`, so `VIP;vip` is one
 * tag), then the static ones; each once, first seen first.
 */
function rowTags(row: SourceRow, job: Job): string[] {
  const { column, separator } = job.tags;
  const raw = column === undefined ? '' : (row.values[column] ?? '');
  const cell = job.tags.case === 'lower' ? raw.toLowerCase() : raw;
  const fromColumn = separator === '' ? [cell] : cell.split(separator);
  return unique([...fromColumn, ...job.tags.static].map((tag) => tag.trim())).filter((tag) => tag !== '');
}

/**
 * The tags of `tags` that another of them spells in another case (`VIP`, `vip`, `Vip`), in
 * first-seen order; undefined when none. The platform keeps each as a tag of its own, which is
 * rarely what an export means: the run warns (summary.json `tagsDifferingInCase`), and
 * `tags.case: lower` makes them one. Under `lower` there are none by construction.
 */
export function tagCaseVariants(tags: readonly string[]): string[] | undefined {
  if (tags.length < 2) return undefined;
  const byFolded = new Map<string, string[]>();
  for (const tag of tags) {
    const folded = tag.toLowerCase();
    const spellings = byFolded.get(folded);
    if (spellings === undefined) byFolded.set(folded, [tag]);
    else spellings.push(tag);
  }
  const variants = [...byFolded.values()].filter((spellings) => spellings.length > 1).flat();
  return variants.length === 0 ? undefined : variants;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function fail(row: SourceRow, code: RowErrorCode, message: string): Extract<MapResult, { ok: false }> {
  return { ok: false, error: { line: row.line, code, message } };
}
