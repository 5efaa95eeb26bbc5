/**
 * The JSON Schema of jobs.yaml, generated from the input schema (like changesets' config schema),
 * committed as jobs.schema.json so editors complete and check jobs files:
 * `# yaml-language-server: $schema=./jobs.schema.json`. A test fails when the two drift apart.
 */
import { z } from 'zod';
import { EXTENSION_KEY_PREFIX, jobsFileInputSchema } from './schema.js';

/** Name of the committed schema file at the repository root. */
export const JOBS_SCHEMA_FILE = 'jobs.schema.json';

/** The JSON Schema (draft-07, the draft editors support best) of what a user writes in jobs.yaml. */
export function jobsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(jobsFileInputSchema, {
    io: 'input',
    target: 'draft-7',
    override: ({ zodSchema, jsonSchema }) => {
      // zod drops a `default` given through meta() on transformed schemas (env booleans, numbers).
      const meta = z.globalRegistry.get(zodSchema as unknown as z.ZodType);
      if (meta?.default !== undefined && jsonSchema.default === undefined) jsonSchema.default = meta.default;
      // z.number().int() adds the safe-integer bounds: noise for a reader of the schema.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
  // Top-level x- keys are the user's (anchors to reuse), ignored by the loader: accepted here too.
  const extensions = { [`^${EXTENSION_KEY_PREFIX}`]: { description: 'ignored: a place for YAML anchors that jobs and connections reuse, e.g. x-defaults: &defaults' } };
  return { ...schema, patternProperties: extensions, title: 'contact-sync jobs file' };
}

/** The exact text of jobs.schema.json: two-space JSON and a final newline. */
export function jobsJsonSchemaText(): string {
  return `${JSON.stringify(jobsJsonSchema(), null, 2)}\n`;
}
