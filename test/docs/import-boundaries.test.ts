/**
 * The rooms of src/ (docs/architecture.md) are enforced by lint: each rule refuses a forbidden
 * import, and lets the allowed ones through. Linted as text, with only the boundary rules on.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { boundaries } from '../../eslint.boundaries.mjs';

const eslint = new ESLint({
  cwd: new URL('../..', import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...boundaries],
});

/** The boundary messages for `import ... from 'specifier'` written in `file`. */
async function refusals(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import type { X } from '${specifier}';\nexport type Y = X;\n`, { filePath: file });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('import boundaries', () => {
  it.each([
    ['src/api/v1/client.ts', '../../config/job-types.js', /the API client knows no job/],
    ['src/api/v2/client.ts', '../../pipeline/types.js', /the API client knows no job/],
    ['src/api/http-exchange.ts', '../pipeline/types.js', /the API client knows no job/],
    ['src/api/v1/client.ts', '../v2/endpoint-limits.js', /v1's adapter stands beside v2's/],
    ['src/api/v2/client.ts', '../v1/envelopes.js', /v2's adapter stands beside v1's/],
    ['src/api/limiter.ts', './v2/learnt-limits.js', /the shared HTTP layer stands under both adapters/],
    ['src/api/platform-surface.ts', './v1/surface.js', /the shared HTTP layer stands under both adapters/],
    ['src/api/call-attempts.ts', '../config/job-types.js', /the API client knows no job/],
    ['src/config/schema.ts', '../state/state-store.js', /the config reads jobs.yaml and knows nothing of running them/],
    ['src/config/schema.ts', '../api/v1/client.js', /the config makes no call/],
    ['src/state/state-store.ts', '../api/v1/client.js', /the state store makes no call/],
    ['src/state/state-store.ts', '../pipeline/types.js', /the state store makes no call/],
    ['src/pipeline/run-job.ts', '../emulator/index.js', /the pipeline never imports the emulator/],
    ['src/pipeline/row/sync-row.ts', '../../emulator/index.js', /the pipeline never imports the emulator/],
    ['src/pipeline/run-job.ts', '../api/v1/client.js', /through the ContactsApi port/],
    ['src/pipeline/row/sync-row.ts', '../../api/v2/client.js', /through the ContactsApi port/],
    ['src/pipeline/message/send-messages.ts', '../../api/v1/envelopes.js', /through the ContactsApi port/],
    ['src/pipeline/run-job.ts', '../api/limiter.js', /through the ContactsApi port/],
    ['src/pipeline/row/sync-row.ts', 'pg', /through the state port/],
    ['src/pipeline/run-job.ts', '../state/postgres/postgres-store.js', /through the state port/],
    ['src/pipeline/kinds/sync-kind.ts', '../../state/postgres/sync-bridge.js', /through the state port/],
    ['src/pipeline/row/decide.ts', '../../api/contacts-api.js', /the row decision is pure/],
    ['src/pipeline/row/decide.ts', '../../state/state-store.js', /the row decision is pure/],
    ['src/pipeline/row/plan.ts', './sync-row.js', /the row decision is pure/],
    ['src/pipeline/undo/undo-plan.ts', '../../state/state-store.js', /the row decision is pure/],
    ['src/pipeline/undo/undo-plan.ts', '../row/write.js', /the row decision is pure/],
    ['src/pipeline/departed/departure-plan.ts', '../row/sync-row.js', /the row decision is pure/],
    ['src/pipeline/departed/departure-plan.ts', './settle-departed.js', /the row decision is pure/],
    ['src/pipeline/undo/undo-plan.ts', './run-undo.js', /the row decision is pure/],
    ['src/pipeline/row/compare.ts', './reconcile-row.js', /the row decision is pure/],
    ['src/pipeline/row/compare.ts', './key-facts.js', /the row decision is pure/],
    ['src/pipeline/row/decide.ts', '../../state/contacts-table.js', /the row decision is pure/],
    ['src/pipeline/row/decide.ts', '../../emulator/index.js', /the pipeline never imports the emulator/],
    ['src/emulator/server.ts', '../pipeline/types.js', /the emulator follows the spec/],
    ['src/emulator/server.ts', '../api/v1/client.js', /the emulator follows the spec/],
    ['src/watch/webhook.ts', '../config/job-types.js', /the watchers tell the outside how a job ended/],
    ['src/watch/pushgateway.ts', '../api/v1/client.js', /the watchers tell the outside how a job ended/],
    ['src/watch/run-metrics.ts', '../pipeline/run-job.js', /the watchers tell the outside how a job ended/],
  ])('%s may not import %s', async (file, specifier, reason) => {
    const found = await refusals(file, specifier);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^no-restricted-imports: /);
    expect(found[0]).toMatch(reason);
    expect(found[0]).toContain('docs/architecture.md');
  });

  it.each([
    ['src/api/v1/client.ts', '../../limits.js'],
    ['src/api/v2/client.ts', '../http-exchange.js'],
    ['src/pipeline/row/sync-row.ts', '../../api/errors.js'],
    ['src/config/schema.ts', '../api/wire-types.js'],
    ['src/config/schema.ts', '../api/base-url.js'],
    ['src/state/state-store.ts', '../api/wire-types.js'],
    ['src/pipeline/row/sync-row.ts', '../../api/contacts-api.js'],
    ['src/pipeline/row/sync-row.ts', '../../state/state-store.js'],
    ['src/pipeline/row/decide.ts', './plan.js'],
    ['src/pipeline/undo/undo-plan.ts', '../row/plan.js'],
    ['src/pipeline/departed/departure-plan.ts', '../row/plan.js'],
    ['src/pipeline/row/decide.ts', '../../api/wire-types.js'],
    ['src/cli/run-session.ts', '../emulator/index.js'],
    ['src/watch/run-metrics.ts', '../pipeline/report/job-summary.js'],
    ['src/watch/metrics-textfile.ts', '../state/sqlite-database.js'],
  ])('%s may import %s', async (file, specifier) => {
    expect(await refusals(file, specifier)).toEqual([]);
  });
});
