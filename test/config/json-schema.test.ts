import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JOBS_SCHEMA_FILE, jobsJsonSchema, jobsJsonSchemaText } from '../../src/config/index.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('JSON Schema of jobs.yaml', () => {
  test('the committed jobs.schema.json is the one generated from the input schema', async () => {
    const committed = await readFile(join(repoRoot, JOBS_SCHEMA_FILE), 'utf8').catch(() => '(missing)');
    if (committed !== jobsJsonSchemaText()) {
      throw new Error(`${JOBS_SCHEMA_FILE} is out of date with src/config/schema.ts; run \`npm run schema\` and commit the result`);
    }
  });

  test('the schema is strict and shows defaults and descriptions to editors', () => {
    const schema = jobsJsonSchema() as {
      additionalProperties: boolean;
      patternProperties: Record<string, unknown>;
      required: string[];
      properties: { jobs: { items: { additionalProperties: boolean; properties: Record<string, { default?: unknown; description?: string }> } } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['connections', 'jobs']);
    // Top-level x- keys (YAML anchors to reuse) are the user's, as the loader ignores them.
    expect(Object.keys(schema.patternProperties)).toEqual(['^x-']);
    const job = schema.properties.jobs.items;
    expect(job.additionalProperties).toBe(false);
    expect(job.properties.mode).toMatchObject({ default: 'upsert' });
    expect(job.properties.concurrency).toMatchObject({ default: 8 });
    expect(job.properties.connection!.description).toBe('the name of a connection under connections:');
  });

  test('jobs.example.yaml points editors at the schema on its first line', async () => {
    const example = await readFile(join(repoRoot, 'jobs.example.yaml'), 'utf8');
    expect(example.split('\n')[0]).toBe('# yaml-language-server: $schema=./jobs.schema.json');
  });
});
