/**
 * zod issues -> issues a user can act on: the YAML path, what is there, and what to write.
 * Messages of the schema's own checks are already written that way and pass through; zod's
 * generic codes (missing key, wrong type, unknown key, bad enum value, no union branch) are
 * phrased here from the schema's descriptions.
 */
import { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { EXTENSION_KEY_PREFIX } from './schema.js';
import { isSecretPath, kindOf, showValue } from './show-value.js';
import { valueAtPath } from './yaml-path.js';
import type { YamlPath } from './yaml-path.js';

export interface PathIssue {
  path: YamlPath;
  message: string;
}

type Issue = z.core.$ZodIssue;

/** Formats the issues of `schema.safeParse(data)`; `prefix` is where `data` sits in the file. */
export function describeSchemaIssues(issues: readonly Issue[], schema: z.ZodType, data: unknown, prefix: YamlPath = []): PathIssue[] {
  const described = issues.flatMap((issue) => describeIssue(issue, schema, data, prefix));
  // `baseURL` reported as "did you mean baseUrl?" need not be reported again as "baseUrl is missing".
  const suggested = new Set(described.flatMap((issue) => (issue.suggested === undefined ? [] : [pathId(issue.suggested)])));
  return described
    .filter((issue) => !(issue.missing === true && suggested.has(pathId(issue.path))))
    .map(({ path, message }) => ({ path, message }));
}

interface DescribedIssue extends PathIssue {
  /** The path of the key an unknown key was probably meant to be. */
  suggested?: YamlPath;
  /** The issue says a required key is missing. */
  missing?: boolean;
}

function pathId(path: YamlPath): string {
  return JSON.stringify(path.map(String));
}

function describeIssue(issue: Issue, root: z.ZodType, data: unknown, prefix: YamlPath): DescribedIssue[] {
  const relative = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
  const path = [...prefix, ...relative];
  const value = valueAtPath(data, relative);
  const schema = schemaAtPath(root, relative, data);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = objectKeys(schema, value);
      return issue.keys.map((key) => {
        const suggestion = didYouMean(key, known);
        const fix =
          suggestion !== undefined
            ? `did you mean "${suggestion}"?`
            : `remove it; the keys here are ${known.join(', ')}${path.length === 0 ? `, and any key starting with ${EXTENSION_KEY_PREFIX} (ignored: a place for YAML anchors, ${EXTENSION_KEY_PREFIX}defaults: &defaults)` : ''}`;
        return {
          path: [...path, key],
          message: `unknown key "${key}"; ${fix}`,
          ...(suggestion === undefined ? {} : { suggested: [...path, suggestion] }),
        };
      });
    }
    case 'invalid_type':
      return [{ path, message: typeMessage(value, path, schema, issue.expected), missing: value === undefined }];
    case 'invalid_value': {
      const options = issue.values.map((option) => String(option));
      const suggestion = typeof value === 'string' ? didYouMean(value, options) : undefined;
      const fix = suggestion !== undefined ? `did you mean "${suggestion}"?` : `write one of ${options.join(', ')}`;
      if (value === undefined) return [{ path, message: `is missing; write one of ${options.join(', ')}` }];
      return [{ path, message: `${showValue(value, path)} is not one of ${options.join(', ')}; ${fix}` }];
    }
    case 'invalid_union':
      return unionMessages(issue, schema, value, path);
    default:
      return [{ path, message: issue.message }];
  }
}

function typeMessage(value: unknown, path: YamlPath, schema: z.ZodType | undefined, expected: string): string {
  const description = describe(schema) ?? expected;
  const key = path[path.length - 1];
  if (value === undefined) return typeof key === 'string' ? `is missing; add ${key}: ${description}` : `is missing; write ${description}`;
  if (value === null) return `is empty; write ${description}`;
  // YAML reads 2024 or true as a number or boolean; say so when the quoted text would do.
  const quotable = (typeof value === 'number' || typeof value === 'boolean') && schema?.safeParse(String(value)).success === true;
  const quote = !quotable ? '' : isSecretPath(path) ? ' (quote it)' : ` (quote it: "${String(value)}")`;
  if (typeof value === 'object') return `holds ${kindOf(value)}; write ${description}`;
  return `${showValue(value, path)} is ${kindOf(value)}; write ${description}${quote}`;
}

/**
 * When no branch of a union fits, report the branch the user evidently meant: the only one of the
 * right kind (string, list, mapping...), or the mapping branch sharing the most keys with the
 * value. With no such branch, say what the accepted forms are.
 */
function unionMessages(
  issue: Extract<Issue, { code: 'invalid_union' }>,
  schema: z.ZodType | undefined,
  value: unknown,
  path: YamlPath,
): DescribedIssue[] {
  const union = unwrap(schema);
  const description = describe(schema) ?? 'a value of another form';
  if (union instanceof z.ZodUnion && issue.errors.length === union.options.length) {
    const index = pickBranch(union.options as readonly z.ZodType[], value);
    const branch = index === undefined ? undefined : union.options[index];
    const errors = index === undefined ? undefined : issue.errors[index];
    if (branch !== undefined && errors !== undefined) return describeSchemaIssues(errors, branch as z.ZodType, value, path);
  }
  if (value === undefined) return [{ path, message: `is missing; add ${String(path[path.length - 1])}: ${description}`, missing: true }];
  if (value === null) return [{ path, message: `is empty; write ${description}` }];
  if (!isPlainObject(value)) return [{ path, message: typeMessage(value, path, schema, description) }];
  const keys = Object.keys(value);
  const shown = keys.length === 0 ? 'an empty mapping' : `a mapping with ${keys.join(', ')}`;
  return [{ path, message: `${shown} fits none of the accepted forms; write ${description}` }];
}

function pickBranch(options: readonly z.ZodType[], value: unknown): number | undefined {
  const fitting = options.flatMap((option, index) => (acceptsKindOf(option, value) ? [index] : []));
  if (fitting.length === 1) return fitting[0];
  if (!isPlainObject(value) || fitting.length === 0) return undefined;
  const keys = Object.keys(value);
  const scores = fitting.map((index) => {
    const known = objectKeys(options[index], value);
    return keys.filter((key) => known.includes(key)).length;
  });
  const best = Math.max(...scores);
  const winners = fitting.filter((_, i) => scores[i] === best);
  return best > 0 && winners.length === 1 ? winners[0] : undefined;
}

function acceptsKindOf(schema: z.ZodType, value: unknown): boolean {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodUnion) return (inner.options as readonly z.ZodType[]).some((option) => acceptsKindOf(option, value));
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return typeof value === 'string';
  if (inner instanceof z.ZodNumber) return typeof value === 'number';
  if (inner instanceof z.ZodBoolean) return typeof value === 'boolean';
  if (inner instanceof z.ZodLiteral) return inner.values.has(value as never);
  if (inner instanceof z.ZodArray) return Array.isArray(value);
  if (inner instanceof z.ZodObject || inner instanceof z.ZodRecord) return isPlainObject(value);
  return false;
}

/** The schema that validates the value at `path` under `schema`, choosing union branches by `data`. */
export function schemaAtPath(schema: z.ZodType, path: YamlPath, data: unknown): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  let value = data;
  for (const segment of path) {
    current = childSchema(current, segment, value);
    if (current === undefined) return undefined;
    value = valueAtPath(value, [segment]);
  }
  return current;
}

function childSchema(schema: z.ZodType | undefined, segment: string | number, value: unknown): z.ZodType | undefined {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) return (inner.shape as Record<string, z.ZodType>)[String(segment)];
  if (inner instanceof z.ZodRecord) return inner.valueType as z.ZodType;
  if (inner instanceof z.ZodArray) return inner.element as z.ZodType;
  if (inner instanceof z.ZodUnion) {
    const options = inner.options as readonly z.ZodType[];
    const index = pickBranch(options, value);
    return index === undefined ? undefined : childSchema(options[index], segment, value);
  }
  return undefined;
}

/** One wrapper less: optional, default, nullable, or the input side of a pipe (our transforms). */
function unwrapOnce(schema: z.ZodType): z.ZodType | undefined {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodNullable) {
    return schema.unwrap() as z.ZodType;
  }
  if (schema instanceof z.ZodPipe) return schema.in as z.ZodType;
  return undefined;
}

/** The schema under its wrappers. Bounded: schemas nest wrappers a few levels at most. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let depth = 0; depth < 10 && current !== undefined; depth++) {
    const next = unwrapOnce(current);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

/** The first description found from the outside in. */
function describe(schema: z.ZodType | undefined): string | undefined {
  let current = schema;
  for (let depth = 0; depth < 10 && current !== undefined; depth++) {
    if (current.description !== undefined) return current.description;
    current = unwrapOnce(current);
  }
  return undefined;
}

/** Keys of the object schema that validates `value` (through a union, the branch it fits). */
function objectKeys(schema: z.ZodType | undefined, value: unknown): string[] {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) return Object.keys(inner.shape);
  if (inner instanceof z.ZodUnion) {
    const options = inner.options as readonly z.ZodType[];
    const index = pickBranch(options, value);
    return index === undefined ? [] : objectKeys(options[index], value);
  }
  return [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
