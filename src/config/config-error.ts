/**
 * The one error the configuration loader throws. Like csv-parse's CsvError, the context (file,
 * YAML path, line) travels on the error as data; `message` is the same thing rendered for a user.
 */
import { ContactSyncError } from '../failure/contact-sync-error.js';

/**
 * `CONFIG_UNREADABLE`: the jobs file is missing, a directory or unreadable.
 * `CONFIG_SYNTAX`: the file is not valid YAML.
 * `CONFIG_INVALID`: the YAML is well formed but the configuration is wrong.
 */
export type ConfigErrorCode = 'CONFIG_UNREADABLE' | 'CONFIG_SYNTAX' | 'CONFIG_INVALID';

/** One problem of a jobs file. */
export interface ConfigIssue {
  /** YAML path such as `jobs[0].fields.email`; `""` for the file as a whole. */
  path: string;
  /** `<problem>; <fix>`. Never holds the channel token. */
  message: string;
  /** 1-based line of the node the path names (or of its closest written ancestor). */
  line?: number;
  /** 1-based column of that node. */
  column?: number;
}

export class ConfigError extends ContactSyncError<ConfigErrorCode> {
  override readonly name = 'ConfigError';
  readonly code: ConfigErrorCode;
  /** The jobs file as the user named it. */
  readonly file: string;
  /** Every problem found, in the order of the file. */
  readonly issues: readonly ConfigIssue[];

  constructor(code: ConfigErrorCode, file: string, issues: readonly ConfigIssue[], options?: { cause?: unknown }) {
    super(issues.map((issue) => formatConfigIssue(file, issue)).join('\n'), options);
    this.code = code;
    this.file = file;
    this.issues = issues;
  }

  get context(): Readonly<Record<string, unknown>> {
    return { file: this.file, issues: this.issues };
  }
}

/** `<file>: <yamlPath>: <problem>; <fix> (line N)`, or `<file>: line N, column C: ...` without a path. */
export function formatConfigIssue(file: string, issue: ConfigIssue): string {
  if (issue.path !== '') {
    const line = issue.line === undefined ? '' : ` (line ${issue.line})`;
    return `${file}: ${issue.path}: ${issue.message}${line}`;
  }
  if (issue.line !== undefined) {
    const column = issue.column === undefined ? '' : `, column ${issue.column}`;
    return `${file}: line ${issue.line}${column}: ${issue.message}`;
  }
  return `${file}: ${issue.message}`;
}
