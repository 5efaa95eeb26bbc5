/** `{{ column }}`: a column name between double braces, spaces around it ignored. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

export interface ParsedTemplate {
  /** Column names in order of first appearance, each once. */
  columns: string[];
  /** `<problem>; <fix>` when the braces are not well formed. */
  problem?: string;
}

/** Reads the placeholders of a template such as `{{first_name}} {{ last_name }}`. */
export function parseTemplate(template: string): ParsedTemplate {
  const columns: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const column = (match[1] ?? '').trim();
    if (column === '') {
      return { columns, problem: `${JSON.stringify(template)} has an empty {{}}; put a column name in it: {{first_name}}` };
    }
    if (!columns.includes(column)) columns.push(column);
  }
  const rest = template.replace(PLACEHOLDER, '');
  if (rest.includes('{{') || rest.includes('}}')) {
    return { columns, problem: `${JSON.stringify(template)} has an unbalanced {{ or }}; write each placeholder as {{column}}` };
  }
  return { columns };
}

/** The template with every placeholder replaced by `filler`, to validate its literal parts. */
export function fillPlaceholders(template: string, filler: string): string {
  return template.replace(PLACEHOLDER, filler);
}
