/**
 * Checks, before any row and any API call, that every column a job uses is in the file's header,
 * and reports every missing one at once with the closest header name.
 */
import { parseTemplate } from '../../config/template-placeholders.js';
import { didYouMean } from '../../config/did-you-mean.js';
import type { Job } from '../../config/job-types.js';
import { SourceError } from './source-error.js';

/** One place a job names a column. */
export interface ColumnUse {
  column: string;
  /** Where the job names it, e.g. `jobs[0].fields.email`. */
  path: string;
  /**
   * A message template placeholder: it may also name a mapped field or the key field (they are
   * in the template values), so it is only a column when no field has that name.
   */
  placeholder: boolean;
}

export interface HeaderProblem {
  column: string;
  /** Every place the job names the column. */
  paths: string[];
  /** The header name the user probably meant. */
  suggestion?: string;
  /** `<file>: column "<c>" (<paths>) is not in the header (did you mean "<s>"?)`. */
  message: string;
}

/** Thrown by `assertHeader`: every column missing from the header. */
export class HeaderMismatchError extends SourceError {
  override name = 'HeaderMismatchError';
  readonly problems: readonly HeaderProblem[];
  /** The header the columns were missing from. */
  readonly header: readonly string[];

  constructor(file: string, problems: readonly HeaderProblem[], header: readonly string[] = []) {
    super('INPUT_HEADER_MISMATCH', file, problems.map((problem) => problem.message).join('\n'));
    this.problems = problems;
    this.header = header;
  }
}

/**
 * The same error, each missing column that the header of the job's last run had named as gone
 * from the export (the state store keeps the last header), with the columns that came instead:
 * a column renamed upstream reads as such, not as a typo in the jobs file.
 */
export function nameRenamedColumns(error: HeaderMismatchError, lastHeader: readonly string[]): HeaderMismatchError {
  const before = new Set(lastHeader);
  const newColumns = error.header.filter((name) => name !== '' && !before.has(name));
  const problems = error.problems.map((problem): HeaderProblem => {
    if (!before.has(problem.column)) return problem;
    const instead =
      newColumns.length === 0
        ? `; the export dropped it: have the export write it again, or remove it from the jobs file`
        : `, and this header has ${listNames(newColumns)}, which the last one had not: renamed upstream? Point the jobs file at the new name, or have the export keep ${JSON.stringify(problem.column)}`;
    return { ...problem, message: `${error.file}: column ${JSON.stringify(problem.column)} (${problem.paths.join(', ')}) was in the header of the job's last run and is not in this one${instead}` };
  });
  return new HeaderMismatchError(error.file, problems, error.header);
}

/**
 * Every place the job names a column: key, fields (column and template), tags, the message's
 * templates and contact id column. `jobPath` prefixes the paths in messages.
 */
export function jobColumnUses(job: Job, jobPath = defaultJobPath(job)): ColumnUse[] {
  const uses: ColumnUse[] = [{ column: job.key.column, path: `${jobPath}.key.column`, placeholder: false }];
  for (const field of job.fields) {
    const source = field.source;
    if (source.kind === 'column') uses.push({ column: source.column, path: `${jobPath}.fields.${field.name}`, placeholder: false });
    if (source.kind === 'template') {
      for (const column of source.columns) uses.push({ column, path: `${jobPath}.fields.${field.name}.template`, placeholder: false });
    }
    for (const transform of field.transforms) {
      if (transform.kind === 'phone' && transform.countryColumn !== undefined) {
        uses.push({ column: transform.countryColumn, path: `${jobPath}.fields.${field.name}.transform.phone.country.column`, placeholder: false });
      }
    }
  }
  if (job.tags.column !== undefined) uses.push({ column: job.tags.column, path: `${jobPath}.tags.column`, placeholder: false });
  const message = job.message;
  if (message !== undefined) {
    const templates: Array<[string, string | undefined]> = [
      ['text', message.text],
      ['url', message.url],
      ...message.quickReplies.map((reply, index): [string, string] => [`quickReplies[${index}]`, reply]),
      ['template.name', message.template?.name],
      ['template.language', message.template?.language],
      ['template.body', message.template?.body],
    ];
    for (const [key, template] of templates) {
      if (template === undefined) continue;
      for (const column of parseTemplate(template).columns) uses.push({ column, path: `${jobPath}.message.${key}`, placeholder: true });
    }
    if (message.contactIdColumn !== undefined) uses.push({ column: message.contactIdColumn, path: `${jobPath}.message.contactIdColumn`, placeholder: false });
  }
  return uses;
}

/**
 * The columns a job reads, each once, in order of first use. A message placeholder naming a
 * mapped field (or the key field) is not a column and is left out.
 */
export function columnsUsedByJob(job: Job): string[] {
  const fieldNames = templateFieldNames(job);
  const columns = jobColumnUses(job)
    .filter((use) => !(use.placeholder && fieldNames.has(use.column)))
    .map((use) => use.column);
  return [...new Set(columns)];
}

/** Every column the job uses that `header` lacks, one problem per column, in order of first use. */
export function checkHeader(job: Job, header: readonly string[], file: string, jobPath = defaultJobPath(job)): HeaderProblem[] {
  const present = new Set(header);
  const fieldNames = templateFieldNames(job);
  const missing = new Map<string, string[]>();
  for (const use of jobColumnUses(job, jobPath)) {
    if (present.has(use.column) || (use.placeholder && fieldNames.has(use.column))) continue;
    const paths = missing.get(use.column) ?? [];
    if (!paths.includes(use.path)) paths.push(use.path);
    missing.set(use.column, paths);
  }
  const names = header.filter((name) => name !== '');
  const delimiter = otherDelimiterIn(header);
  return [...missing].map(([column, paths]) => {
    const suggestion = closestHeaderName(column, names);
    const hint =
      delimiter !== undefined
        ? `; the header is one column holding ${JSON.stringify(delimiter.name)}: the file is separated by ${delimiter.name}, set input.delimiter: ${JSON.stringify(delimiter.char)} in the job (or delimiter: auto)`
        : suggestion !== undefined
          ? ` (did you mean ${JSON.stringify(suggestion)}?)`
          : `; the header has ${listNames(names)}: fix the name in the jobs file or the file's header`;
    const message = `${file}: column ${JSON.stringify(column)} (${paths.join(', ')}) is not in the header${hint}`;
    return suggestion !== undefined ? { column, paths, suggestion, message } : { column, paths, message };
  });
}

/** `checkHeader`, throwing a `HeaderMismatchError` (code INPUT_HEADER_MISMATCH) when anything is missing. */
export function assertHeader(job: Job, header: readonly string[], file: string, jobPath = defaultJobPath(job)): void {
  const problems = checkHeader(job, header, file, jobPath);
  if (problems.length > 0) throw new HeaderMismatchError(file, problems, header);
}

/** A one-column header holding another delimiter: the file was read with the wrong one. */
function otherDelimiterIn(header: readonly string[]): { char: string; name: string } | undefined {
  const [only] = header;
  if (header.length !== 1 || only === undefined) return undefined;
  const candidates = [
    { char: ';', name: 'semicolons' },
    { char: '\t', name: 'tabs' },
    { char: '|', name: 'pipes' },
    { char: ',', name: 'commas' },
  ];
  return candidates.find((candidate) => only.includes(candidate.char));
}

/** Same letters in another case first, else the nearest name close enough to be a typo. */
function closestHeaderName(column: string, names: readonly string[]): string | undefined {
  const lower = column.toLowerCase();
  return names.find((name) => name.toLowerCase() === lower) ?? didYouMean(column, names);
}

/** Names the template values hold besides the columns. */
function templateFieldNames(job: Job): Set<string> {
  return new Set([job.key.field, ...job.fields.map((field) => field.name)]);
}

function listNames(names: readonly string[]): string {
  const shown = names.slice(0, 12).map((name) => JSON.stringify(name));
  if (names.length > shown.length) shown.push(`and ${names.length - shown.length} more`);
  return shown.length === 0 ? 'no named column' : shown.join(', ');
}

function defaultJobPath(job: Job): string {
  return `jobs[name=${job.name}]`;
}
