/**
 * README's command table names every flag of every command that `--help` lists, and no other:
 * a flag added without its place in the README (or left there after its removal) fails here.
 */
import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { workspace } from '../helpers/cli-harness.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const GLOBAL = new Set(['--log-format', '--log-level', '--quiet', '--help', '--version']);

/** The flags of `contact-sync <command>` in README's command table. */
function readmeFlags(command: string): string[] {
  const row = readme.split('\n').find((line) => line.startsWith(`| \`contact-sync ${command} `));
  if (row === undefined) throw new Error(`README's command table has no row for "${command}"`);
  const synopsis = row.split('` |')[0]!;
  return [...new Set([...synopsis.matchAll(/--[a-z][a-z-]*/g)].map((match) => match[0]))].sort();
}

/** The flags `contact-sync <command> --help` lists, the global ones left out. */
async function helpFlags(command: string): Promise<string[]> {
  const printed: string[] = [];
  // yargs prints the help through console.log.
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(args.map(String).join(' '));
  });
  try {
    const run = await workspace().run([command, '--help']);
    expect(run.exitCode).toBe(0);
  } finally {
    log.mockRestore();
  }
  const flags = [...printed.join('\n').matchAll(/^\s+(--[a-z][a-z-]*)/gm)].map((match) => match[1]!);
  return [...new Set(flags.filter((flag) => !GLOBAL.has(flag)))].sort();
}

describe("README's command table", () => {
  it.each(['run', 'reconcile', 'undo', 'history', 'validate', 'check', 'state', 'forget', 'emulator'])('"%s" lists the flags --help lists', async (command) => {
    expect(readmeFlags(command)).toEqual(await helpFlags(command));
  });

  it('names every global option', async () => {
    const globals = readme.split('\n').find((line) => line.startsWith('Global options:'));
    const printed: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      printed.push(args.map(String).join(' '));
    });
    try {
      await workspace().run(['--help']);
    } finally {
      log.mockRestore();
    }
    const listed = [...printed.join('\n').matchAll(/^\s+(--[a-z][a-z-]*)/gm)].map((match) => match[1]!);
    const paragraph = readme.slice(readme.indexOf(globals ?? '')).split('\n\n')[0]!;
    expect(listed.filter((flag) => !paragraph.includes(`\`${flag}`))).toEqual([]);
  });
});

describe("README's reports", () => {
  it('lists the columns of results.csv as the reporter writes them', async () => {
    const { RESULT_COLUMNS } = await import('../../src/pipeline/report/report.js');
    expect(readme).toContain(`\`${RESULT_COLUMNS.join(',')}\``);
  });

  it('lists the columns of validate --problems as the file is written (issue 41: key was missing)', async () => {
    const { PROBLEM_COLUMNS } = await import('../../src/cli/problems-file.js');
    expect(readme).toContain(`\`${PROBLEM_COLUMNS.join(',')}\``);
  });
});
