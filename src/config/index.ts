/** The configuration room's public surface: load jobs.yaml, its errors, rates and JSON Schema. */
export { loadJobsFile } from './load-jobs-file.js';
export type { LoadJobsFileOptions, LoadedJobsFile } from './load-jobs-file.js';
export { ConfigError, formatConfigIssue } from './config-error.js';
export type { ConfigErrorCode, ConfigIssue } from './config-error.js';
export type { Environment } from './env-interpolation.js';
export { parseRate, formatRate } from './rate.js';
export { jobsJsonSchema, jobsJsonSchemaText, JOBS_SCHEMA_FILE } from './json-schema.js';
export type * from './job-types.js';
