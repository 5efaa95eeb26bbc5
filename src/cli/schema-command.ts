/** `contact-sync schema` (hidden): prints the JSON Schema of jobs.yaml, generated from the zod schema. */
import { jobsJsonSchema } from '../config/json-schema.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from '../exit-codes.js';

export function schemaCommand(io: CliIo): number {
  io.stdout.write(`${JSON.stringify(jobsJsonSchema(), null, 2)}\n`);
  return EXIT.ok;
}
