/**
 * jobs.yaml as text -> plain data, keeping the parsed document so that any issue found later on
 * the data can be placed back on its line.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node, YAMLError } from 'yaml';
import type { ConfigIssue } from './config-error.js';
import type { YamlPath } from './yaml-path.js';

export interface Position {
  line: number;
  column: number;
}

export type ParsedYaml =
  | { ok: true; data: unknown; warnings: ConfigIssue[]; locate: (path: YamlPath) => Position | undefined }
  | { ok: false; issue: ConfigIssue };

/** Anchors may be reused this many times at most: a guard against "billion laughs" files. */
const MAX_ALIAS_COUNT = 1_000;

export function parseYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  // `merge: true` lets users share settings between jobs with `<<: *defaults`.
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter, merge: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first !== undefined) return { ok: false, issue: syntaxIssue(first, text) };
  const data: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const warnings = doc.warnings.map((warning) => ({ path: '', message: `${firstLine(warning.message)}; check this line`, ...position(warning.pos[0]) }));
  return { ok: true, data, warnings, locate: (path) => locateNode(doc, path, position) };
}

/** Position of the key (for map members) or item at `path`, or of its deepest written ancestor. */
function locateNode(doc: Document, path: YamlPath, position: (offset: number) => Position): Position | undefined {
  let node: unknown = doc.contents;
  let found: number | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) break;
      const keyRange = (pair.key as Node).range;
      if (keyRange) found = keyRange[0];
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (item === undefined) break;
      const range = (item as Partial<Node>).range;
      if (range) found = range[0];
      node = item;
    } else {
      break;
    }
  }
  return found === undefined ? undefined : position(found);
}

/** yaml's messages end with " at line L, column C:" and a code frame; keep the sentence. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

const SYNTAX_FIXES: Readonly<Record<string, string>> = {
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  DUPLICATE_KEY: 'a key appears twice in the same mapping; keep one of them',
  MISSING_CHAR: 'close the quote or bracket opened here or before',
  BAD_INDENT: 'check the indentation: the keys of one mapping start in the same column',
  BLOCK_AS_IMPLICIT_KEY: 'check the indentation, and quote a value that contains ": "',
  MULTILINE_IMPLICIT_KEY: 'check the indentation, and quote a value that contains ": "',
};

function syntaxIssue(error: YAMLError, text: string): ConfigIssue {
  const line = error.linePos?.[0].line;
  const column = error.linePos?.[0].col;
  const source = line === undefined ? '' : (text.split(/\r?\n/)[line - 1] ?? '');
  const fix =
    /[{[].*\$\{/.test(source)
      ? 'inside { } or [ ], quote a ${VAR} value: "${VAR}"'
      : // yaml reports a list item without its "- " with the code of an unclosed quote.
        /without - indicator/i.test(error.message)
        ? 'start each item of the list with "- " at the same indentation as the others'
        : (SYNTAX_FIXES[error.code] ?? 'check the YAML syntax here; quote values that contain ": " or " #", or start with { [ * & ! | > % @ `');
  // yaml quotes source text in some messages; on the token's line that text could be the token.
  const problem = /\btoken\s*:/.test(source) ? firstLine(error.message).replace(/"[^"]*"/g, '"..."') : firstLine(error.message);
  return { path: '', message: `YAML syntax error: ${problem}; ${fix}`, line, column };
}
