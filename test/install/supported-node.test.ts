/**
 * The Node.js contact-sync runs on is package.json's engines range, checked by the launcher before
 * anything loads: on an older Node the state store's SQLite library would crash the process, so
 * the launcher says what is needed instead, exit 2, or runs on the Node.js npm ci fetched into a
 * checkout (test/install/launcher.test.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
// @ts-expect-error: a plain JavaScript module of the launcher, with no type declarations
import { isSupportedNode, MINIMUM_NODE, NODE_RANGE, unsupportedNodeMessage } from '../../bin/supported-node.js';

const root = new URL('../..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const semver = require('semver') as { minVersion(range: string): { version: string } | null };
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } };

const supported = isSupportedNode as (version?: string) => boolean;
const message = unsupportedNodeMessage as (version?: string) => string;

describe('the supported Node.js', () => {
  it('is the engines range of package.json, whose lowest version the launcher reads', () => {
    expect(NODE_RANGE).toBe(manifest.engines.node);
    expect((MINIMUM_NODE as number[]).join('.')).toBe(semver.minVersion(manifest.engines.node)?.version);
  });

  it.each([
    ['20.20.2', false],
    ['21.7.3', false],
    ['22.0.0', false],
    ['22.11.9', false],
    ['22.12.0', true],
    ['22.23.3', true],
    ['24.21.0', true],
    ['26.1.0', true],
  ])('Node.js %s supported: %s', (version, expected) => {
    expect(supported(version)).toBe(expected);
  });

  it('an older Node.js is told what is needed, what it is, and the fix', () => {
    expect(message('20.20.2')).toBe(
      `contact-sync needs Node.js ${manifest.engines.node}, and this is Node.js v20.20.2: its state store's SQLite library does not run on it. ` +
        'Install a supported Node.js (24 is the active LTS release, 22 is also supported) and run again.',
    );
  });
});
