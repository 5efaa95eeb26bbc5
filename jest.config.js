import { createDefaultEsmPreset } from 'ts-jest';

/** What both projects share. */
const common = {
  ...createDefaultEsmPreset({ tsconfig: 'tsconfig.json' }),
  testEnvironment: 'node',
  rootDir: import.meta.dirname,
  roots: ['<rootDir>/test'],
  // The folders a test file made with tempDir() are removed after it (scripts/jest.mjs checks
  // that nothing is left).
  setupFilesAfterEnv: ['<rootDir>/test/setup/remove-temp-dirs.ts'],
  // Sources import each other with `.js` (NodeNext); jest resolves the `.ts` file.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // Its ESM build imports JSON without an import attribute, which jest's ESM loader warns about
    // on every import; the CommonJS build is the same library.
    '^libphonenumber-js$': '<rootDir>/node_modules/libphonenumber-js/index.cjs',
  },
};

/**
 * Two projects: `main`, in parallel, and `timing`, the tests that need real time to pass (pacing at
 * a rate, a signal landing mid-run: files named *.timing.test.ts), run in band by
 * scripts/jest.mjs so a machine busy with other work cannot starve them.
 * @type {import('jest').Config}
 */
export default {
  // dist/ built once, before any test (the CLI's child-process tests load it).
  globalSetup: '<rootDir>/test/global-setup.mjs',
  testTimeout: 30_000,
  // Two cores: integration tests start servers and child processes.
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'main', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', '\\.timing\\.test\\.ts$'] },
    { ...common, displayName: 'timing', testMatch: ['**/*.timing.test.ts'] },
  ],
};
