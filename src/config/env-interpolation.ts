/**
 * `${VAR}` and `${VAR:-default}` in string values of jobs.yaml. Runs on the parsed data, so a
 * value coming from the environment is never read as YAML (a `#` or `: ` in a token stays text).
 */
import type { YamlPath } from './yaml-path.js';

/** The environment the loader reads, injected so tests and callers control it. */
export type Environment = Readonly<Record<string, string | undefined>>;

export interface InterpolationIssue {
  path: YamlPath;
  message: string;
}

export interface InterpolationResult {
  value: unknown;
  issues: InterpolationIssue[];
}

/** `$${` is a literal `${`; otherwise `${NAME}` or `${NAME:-default}` (default up to the first `}`). */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces every reference in every string of `data`. A `${VAR}` whose variable is unset or empty
 * is an issue naming the variable and the path (empty counts as unset, as with the shell's `:-`:
 * an empty token or URL is never what was meant). Values with an issue become undefined.
 */
export function interpolateEnv(data: unknown, env: Environment): InterpolationResult {
  const issues: InterpolationIssue[] = [];
  const value = walk(data, [], env, issues);
  return { value, issues };
}

function walk(value: unknown, path: YamlPath, env: Environment, issues: InterpolationIssue[]): unknown {
  if (typeof value === 'string') return interpolateString(value, path, env, issues);
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], env, issues));
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[key] = walk(item, [...path, key], env, issues);
    return result;
  }
  return value;
}

function interpolateString(text: string, path: YamlPath, env: Environment, issues: InterpolationIssue[]): string | undefined {
  if (!text.includes('${')) return text;
  const before = issues.length;
  const result = text.replace(REFERENCE, (whole: string, body: string | undefined) => {
    if (whole === '$${') return '${';
    if (!whole.endsWith('}')) {
      issues.push({ path, message: `"\${" is not closed; write \${NAME} or \${NAME:-default}, or $\${ for a literal "\${"` });
      return whole;
    }
    const separator = (body ?? '').indexOf(':-');
    const name = separator === -1 ? (body ?? '') : (body ?? '').slice(0, separator);
    if (!NAME.test(name)) {
      issues.push({
        path,
        message: `${JSON.stringify(whole)} is not a variable reference; write \${NAME} or \${NAME:-default} with NAME made of letters, digits and _, or $\${ for a literal "\${"`,
      });
      return whole;
    }
    const set = env[name];
    if (set !== undefined && set !== '') return set;
    if (separator !== -1) return (body ?? '').slice(separator + 2);
    issues.push({ path, message: missingVariableMessage(name, path) });
    return whole;
  });
  return issues.length === before ? result : undefined;
}

function missingVariableMessage(name: string, path: YamlPath): string {
  const isToken = path[path.length - 1] === 'token';
  const fix = isToken
    ? `set ${name} in the environment, or name a file holding the token with tokenFile:`
    : `set ${name} in the environment, or give a default: \${${name}:-value}`;
  return `environment variable ${name} is not set (\${${name}} has no default); ${fix}`;
}
