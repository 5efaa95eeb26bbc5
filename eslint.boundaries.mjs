/**
 * The rooms of src/ and what each may import (docs/architecture.md, "Rooms"). A forbidden import
 * fails `npm test`'s lint; test/docs/import-boundaries.test.ts shows each rule refusing one.
 * Imports are matched on their specifier, so `import type` counts too: a room that must not know
 * a module must not know its types either.
 */

/** One room: its files, and the imports it must not make with the reason shown. */
function room(files, forbidden) {
  return {
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns: forbidden.map(([regex, message]) => ({ regex, message })) }],
    },
  };
}

const SEE = ' (docs/architecture.md, "Rooms")';

const PIPELINE = [
  ['(^|/)(emulator|cli)/', `the pipeline never imports the emulator or the CLI${SEE}`],
  [
    '(^|/)api/(v1|v2)/|(^|/)api/(limiter|limiter-slots|http-exchange|call-attempts)\\.js$',
    `the pipeline talks to the platform through the ContactsApi port (src/api/contacts-api.ts), never an adapter (src/api/v1/, src/api/v2/) or the HTTP layer under them${SEE}`,
  ],
  ['^pg$|(^|/)state/postgres/', `the pipeline keeps its state through the state port (src/state/state-port.ts), never the PostgreSQL adapter or its client${SEE}`],
];

const API_KNOWS_NO_JOB = ['^(\\.\\./)+(config|pipeline|state|cli|emulator)/', `the API client knows no job: it imports only src/limits.ts and its own room${SEE}`];

export const boundaries = [
  room(['src/api/**/*.ts'], [API_KNOWS_NO_JOB]),
  // The two adapters are siblings over the shared layer: neither imports the other.
  room(['src/api/v1/**/*.ts'], [API_KNOWS_NO_JOB, ['(^|/)v2/', `API v1's adapter stands beside v2's, not above it: what both use lives in src/api/${SEE}`]]),
  room(['src/api/v2/**/*.ts'], [API_KNOWS_NO_JOB, ['(^|/)v1/', `API v2's adapter stands beside v1's, not above it: what both use lives in src/api/${SEE}`]]),
  // The shared layer stands under both: it knows neither (each adapter states its surface and builds its own budgets over it).
  room(['src/api/*.ts'], [API_KNOWS_NO_JOB, ['^\\./(v1|v2)/', `the shared HTTP layer stands under both adapters and imports neither: an adapter's surface and budgets live in its own folder${SEE}`]]),
  room(
    ['src/config/**/*.ts'],
    [
      ['^\\.\\./(pipeline|state|cli|emulator)/', `the config reads jobs.yaml and knows nothing of running them${SEE}`],
      ['^\\.\\./api/((v1|v2)/|(limiter|contacts-api|http-exchange)\\.js$)', `the config makes no call; it may use the API's wire types and URL rules${SEE}`],
    ],
  ),
  room(
    ['src/state/**/*.ts'],
    [['^\\.\\./(pipeline|cli|emulator|config)/|^\\.\\./api/(?!wire-types\\.js$)', `the state store makes no call and knows no job: it records what the pipeline tells it${SEE}`]],
  ),
  room(['src/pipeline/**/*.ts'], PIPELINE),
  // A later block replaces the rule's options for its files: the planner repeats the pipeline's.
  room(
    ['src/pipeline/row/decide.ts', 'src/pipeline/row/plan.ts', 'src/pipeline/row/contact-order.ts', 'src/pipeline/row/compare.ts', 'src/pipeline/row/finish-plan.ts', 'src/pipeline/departed/departure-plan.ts', 'src/pipeline/undo/undo-plan.ts', 'src/pipeline/verify/verify-plan.ts', 'src/pipeline/message/send-decision.ts'],
    [
      ...PIPELINE,
      [
        // The executors by any path: `./write.js` from row/, `../row/write.js` from undo/ or departed/.
        '(^|/)api/(?!wire-types\\.js$)|(^|/)state/(?!(change-journal|known-contact)\\.js$)|(^\\./|/row/)(sync-row|write|match|contact-index|counted-api|reconcile-row|row-lookahead|key-facts)\\.js$|(^\\./|/undo/)run-undo\\.js$|(^\\./|/departed/)settle-departed\\.js$|(^\\./|/verify/)verify-step\\.js$',
        `the row decision is pure: it imports neither the client nor the state store (the change journal's line types and the known contact's type aside), nor the executor that runs its plans${SEE}`,
      ],
    ],
  ),
  room(
    ['src/watch/**/*.ts'],
    [
      [
        '^\\.\\./(cli|emulator|config)/|^\\.\\./api/|^\\.\\./pipeline/(?!report/(job-summary|row-outcome)\\.js$)',
        `the watchers tell the outside how a job ended, from its summary: they know no job's config, make no platform call and run nothing${SEE}`,
      ],
    ],
  ),
  room(
    ['src/emulator/**/*.ts'],
    [['^\\.\\./(pipeline|state|cli|config)/|^\\.\\./api/(?!wire-types\\.js$)', `the emulator follows the spec, not the client: it shares only the wire types and src/limits.ts${SEE}`]],
  ),
];
