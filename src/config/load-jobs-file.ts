/**
 * jobs.yaml -> JobsFile: read, parse YAML, interpolate `${VAR}`, check the shape (schema) and the
 * cross-key rules, read token files, normalise. Every problem of every stage after YAML parsing
 * is collected and thrown at once, so a user fixes the file in one go.
 */
import { readFile as fsReadFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError, formatConfigIssue } from './config-error.js';
import type { ConfigIssue } from './config-error.js';
import { interpolateEnv } from './env-interpolation.js';
import type { Environment } from './env-interpolation.js';
import type { JobsFile } from './job-types.js';
import { normaliseJobsFile } from './normalise.js';
import { checkRules } from './rules.js';
import { sharedBudgetIssues } from './shared-budget-rule.js';
import { EXTENSION_KEY_PREFIX, jobsFileInputSchema } from './schema.js';
import { describeSchemaIssues } from './schema-issues.js';
import type { PathIssue } from './schema-issues.js';
import { parseYaml } from './yaml-document.js';
import { formatYamlPath, isUnderPath } from './yaml-path.js';
import type { YamlPath } from './yaml-path.js';

export interface LoadJobsFileOptions {
  /** Variables for `${VAR}`; pass `process.env` in the CLI. */
  env: Environment;
  /** Reads a file as UTF-8 (the jobs file and token files). @default fs.promises.readFile */
  readFile?: (path: string) => Promise<string>;
  /**
   * For commands that make no call (`validate`): a token that cannot be had (its variable unset,
   * its tokenFile unreadable) is a warning, not an error, so the check runs in CI without secrets.
   * The jobs then carry no usable token.
   */
  tokenOptional?: boolean;
}

/** The token of a job loaded with `tokenOptional` whose token could not be had: never sent. */
export const NO_TOKEN = 'no-token-loaded';

export interface LoadedJobsFile {
  jobsFile: JobsFile;
  /** `<file>: <yamlPath>: <problem>; <fix>` lines that do not stop the job (e.g. a literal token). */
  warnings: string[];
}

const defaultReadFile = (path: string): Promise<string> => fsReadFile(path, 'utf8');

/**
 * The file's data without its top-level `x-` keys: a place for anchors that `<<: *defaults` or
 * `*name` reuse under `jobs:` or `connections:` (the YAML parser has copied them there already).
 * What they hold is checked where it is used, not where it is defined.
 */
function withoutExtensionKeys(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith(EXTENSION_KEY_PREFIX)));
}

/**
 * Loads and checks a jobs file.
 * @param file path of the jobs file, as the user named it (messages repeat it as given).
 * @throws ConfigError `CONFIG_UNREADABLE`, `CONFIG_SYNTAX` or `CONFIG_INVALID` with every issue.
 */
export async function loadJobsFile(file: string, options: LoadJobsFileOptions): Promise<LoadedJobsFile> {
  const readFile = options.readFile ?? defaultReadFile;
  const absolute = resolve(file);
  const baseDir = dirname(absolute);

  let text: string;
  try {
    text = await readFile(absolute);
  } catch (error) {
    throw new ConfigError('CONFIG_UNREADABLE', file, [{ path: '', message: unreadableMessage(error, file) }], { cause: error });
  }

  const parsed = parseYaml(text);
  if (!parsed.ok) throw new ConfigError('CONFIG_SYNTAX', file, [parsed.issue]);
  const { locate } = parsed;
  const place = (issue: PathIssue): ConfigIssue => ({ path: formatYamlPath(issue.path), message: issue.message, ...locate(issue.path) });

  if (parsed.data === null || parsed.data === undefined) {
    throw new ConfigError('CONFIG_INVALID', file, [
      { path: '', message: 'the file is empty; start from jobs.example.yaml: it has connections: and jobs:' },
    ]);
  }

  const declared = withoutExtensionKeys(parsed.data);
  const warnings: ConfigIssue[] = [...parsed.warnings, ...literalTokenWarnings(declared).map(place)];
  const interpolated = interpolateEnv(declared, options.env);
  const data = interpolated.value;
  const tokens = await readTokens(data, baseDir, readFile);
  if (options.tokenOptional === true) {
    const missing = [...interpolated.issues, ...tokens.issues].filter((issue) => isTokenPath(issue.path));
    for (const issue of missing) {
      warnings.push(place({ path: issue.path, message: `${issue.message} (a warning here: this command makes no call; run needs the token)` }));
      const name = issue.path[1] as string;
      tokens.values[name] = NO_TOKEN;
      setToken(data, name, NO_TOKEN);
    }
    interpolated.issues = interpolated.issues.filter((issue) => !missing.includes(issue));
    tokens.issues = tokens.issues.filter((issue) => !missing.includes(issue));
  }
  const unusable: YamlPath[] = interpolated.issues.map((issue) => issue.path);

  const shape = jobsFileInputSchema.safeParse(data);
  const schemaIssues = shape.success ? [] : describeSchemaIssues(shape.error.issues, jobsFileInputSchema, data);
  const later = [...schemaIssues, ...checkRules(data), ...tokens.issues, ...tokenShapeIssues(data, tokens.values), ...sharedBudgetIssues(data, tokens.values)].filter(
    // A value whose variable is missing is reported once, by interpolation, not again as invalid.
    (issue) => !unusable.some((path) => isUnderPath(issue.path, path)),
  );
  // A variable put under the wrong key (channelType: ${CHANNEL_TOKEN}) would echo the token in
  // that key's message: no message carries a token's text.
  const issues = dedupe([...interpolated.issues, ...later])
    .map((issue) => ({ ...issue, message: withoutTokens(issue.message, tokens.values) }))
    .map(place);
  if (issues.length > 0 || !shape.success) {
    throw new ConfigError('CONFIG_INVALID', file, sortByPosition(issues));
  }

  const normalised = normaliseJobsFile(shape.data, { file: absolute, baseDir, tokens: tokens.values });
  warnings.push(...normalised.warnings.map(place));
  return { jobsFile: normalised.jobsFile, warnings: sortByPosition(warnings).map((issue) => formatConfigIssue(file, issue)) };
}

function unreadableMessage(error: unknown, file: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file; check the path, or copy jobs.example.yaml to start one';
  if (code === 'EISDIR') return `is a directory; name the jobs file in it, e.g. ${file.replace(/\/+$/, '')}/jobs.yaml`;
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied); allow this user to read it';
  return `cannot be read (${code ?? (error instanceof Error ? error.message : String(error))}); check the path and its permissions`;
}

/** A token written in the file ends up in backups and version control; it works, but say so. */
function literalTokenWarnings(data: unknown): PathIssue[] {
  const connections = (data as { connections?: unknown }).connections;
  if (connections === null || typeof connections !== 'object') return [];
  return Object.entries(connections as Record<string, unknown>).flatMap(([name, connection]) => {
    const token = (connection as { token?: unknown } | null)?.token;
    return typeof token === 'string' && token !== '' && !token.includes('${')
      ? [{ path: ['connections', name, 'token'], message: 'is written in the file; put it in an environment variable: token: ${CHANNEL_TOKEN}' }]
      : [];
  });
}

/** The token of each connection, from `token` or from the file `tokenFile` names (trimmed). */
async function readTokens(
  data: unknown,
  baseDir: string,
  readFile: (path: string) => Promise<string>,
): Promise<{ values: Record<string, string>; issues: PathIssue[] }> {
  const values: Record<string, string> = {};
  const issues: PathIssue[] = [];
  const connections = (data as { connections?: unknown } | null)?.connections;
  if (connections === null || typeof connections !== 'object') return { values, issues };
  for (const [name, connection] of Object.entries(connections as Record<string, unknown>)) {
    const { token, tokenFile } = (connection ?? {}) as { token?: unknown; tokenFile?: unknown };
    if (typeof token === 'string') values[name] = token.trim();
    if (typeof tokenFile !== 'string' || tokenFile === '' || token !== undefined) continue;
    const path: YamlPath = ['connections', name, 'tokenFile'];
    try {
      const content = (await readFile(resolve(baseDir, tokenFile))).trim();
      if (content === '') issues.push({ path, message: `${JSON.stringify(tokenFile)} is empty; write the channel token in it` });
      else values[name] = content;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unreadable';
      issues.push({ path, message: `${JSON.stringify(tokenFile)} cannot be read (${code}); check the path (relative to the jobs file) and its permissions` });
    }
  }
  return { values, issues };
}

/** `connections.<name>.token` or `.tokenFile`. */
function isTokenPath(path: YamlPath): boolean {
  return path.length === 3 && path[0] === 'connections' && (path[2] === 'token' || path[2] === 'tokenFile');
}

/** Puts a stand-in token where the connection's token could not be had (tokenOptional). */
function setToken(data: unknown, name: string, token: string): void {
  const connection = (data as { connections?: Record<string, Record<string, unknown> | null> } | null)?.connections?.[name];
  if (connection === null || connection === undefined || typeof connection !== 'object') return;
  connection.token = token;
  delete connection.tokenFile;
}

/** HTTP headers take visible ASCII only: a space or line break is a copy-paste slip, said here. */
function tokenShapeIssues(data: unknown, tokens: Readonly<Record<string, string>>): PathIssue[] {
  const connections = ((data as { connections?: unknown } | null)?.connections ?? {}) as Record<string, { tokenFile?: unknown } | null>;
  return Object.entries(tokens)
    .filter(([, token]) => token !== '' && !/^[!-~]+$/.test(token))
    .map(([name]) => ({
      path: ['connections', name, typeof connections[name]?.tokenFile === 'string' ? 'tokenFile' : 'token'],
      message: 'the token holds a space, a line break or a character that is not visible ASCII; a channel token has none: copy it again from the channel settings',
    }));
}

function withoutTokens(message: string, tokens: Readonly<Record<string, string>>): string {
  let safe = message;
  for (const token of Object.values(tokens)) if (token.length >= 4) safe = safe.split(token).join('[the token]');
  return safe;
}

function dedupe(issues: readonly PathIssue[]): PathIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const id = `${formatYamlPath(issue.path)}\u0000${issue.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Issues in the order of the file; those without a line (the file as a whole) first. */
function sortByPosition(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const key = (issue: ConfigIssue): number => (issue.line ?? 0) * 10_000 + (issue.column ?? 0);
  return [...issues].sort((a, b) => key(a) - key(b));
}
