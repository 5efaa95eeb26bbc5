/** A path into the parsed YAML: map keys and sequence indexes, outermost first. */
export type YamlPath = readonly (string | number)[];

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Renders a path the way users read it: `jobs[0].fields.email`. Keys that are not plain words
 * (a dot, a space) are quoted so the path stays unambiguous: `fields["first name"]`.
 */
export function formatYamlPath(path: YamlPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** True when `path` is `prefix` or lies under it. */
export function isUnderPath(path: YamlPath, prefix: YamlPath): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => String(path[i]) === String(segment));
}

/** The value at `path` in plain data, or undefined when some step is missing. */
export function valueAtPath(data: unknown, path: YamlPath): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}
