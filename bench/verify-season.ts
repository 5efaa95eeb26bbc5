/**
 * A season of nights without a reconcile, with `verify: { share }` (issue 38): one CRM export
 * synced night after night by the real CLI with a state store; each night 1% of the rows change
 * (a field) and agents edit 0.5% of the contacts on the platform behind the job's back (a first
 * name, or the job's tag removed). No reconcile ever runs: verification alone finds the edits.
 * Per night: the calls made next to the fewest the file's changes allow plus the repairs plus the
 * share; and for each agent edit, the nights until a run repaired it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../src/emulator/index.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';

export interface VerifyNight {
  night: number;
  changedRows: number;
  agentEdits: number;
  /** summary.json `verified`, `drift`, `verification.budget`. */
  verified: number;
  drift: number;
  budget: number;
  calls: number;
  /** An update per changed row, one write per drifted contact, and the share's reads. */
  minimumPlusShare: number;
}

export interface VerifySeasonResult {
  rows: number;
  sharePercent: number;
  nights: VerifyNight[];
  /** For each agent edit repaired: the nights it waited (1: repaired by the night after the edit). */
  waited: number[];
  /** Edits still on the platform at the end. */
  unrepaired: number;
}

const JOBS = (input: string, state: string, share: number) => `connections:
  bench:
    baseUrl: \${BENCH_API_URL}
    token: \${BENCH_CHANNEL_TOKEN}
    rateLimits: { contacts: "\${BENCH_CONTACTS_RATE}" }
jobs:
  - name: season
    connection: bench
    input: ${JSON.stringify(input)}
    state: ${JSON.stringify(state)}
    key: { column: customer_id, field: customerid }
    fields: { firstName: first_name, email: { column: email, transform: email } }
    tags: { static: [crm] }
    verify: { share: "${share}%" }
`;

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

const key = (id: number): string => `V${String(id).padStart(6, '0')}`;

export async function runVerifySeason(
  context: { emulator: RunningEmulator; token: string; rate: string; workDir: string; cli: CliPaths },
  rows: number,
  nights: number,
  sharePercent: number,
  log: (line: string) => void,
): Promise<VerifySeasonResult> {
  const random = seeded(38);
  const emails = new Map<number, string>(Array.from({ length: rows }, (_u, index) => [index + 1, `user${index + 1}@example.com`]));
  const input = join(context.workDir, 'season.csv');
  const jobsFile = join(context.workDir, 'season.yaml');
  writeFileSync(jobsFile, JOBS(input, join(context.workDir, 'season.db'), sharePercent));
  const env = { BENCH_API_URL: context.emulator.url, BENCH_CHANNEL_TOKEN: context.token, BENCH_CONTACTS_RATE: context.rate };
  context.emulator.reset(context.token);

  const runNight = async (night: number): Promise<{ calls: number; summary: Record<string, unknown> }> => {
    writeFileSync(input, `customer_id,first_name,email\n${[...emails].map(([id, email]) => `${key(id)},First${id},${email}`).join('\n')}\n`);
    const before = context.emulator.counters(context.token).total.received;
    const dir = join(context.workDir, `season-${night}`);
    const run = await runCli(context.cli, ['run', jobsFile, '--report-dir', dir, '--quiet'], { cwd: context.workDir, env });
    expectExit(run, `season night ${night}`);
    return { calls: context.emulator.counters(context.token).total.received - before, summary: JSON.parse(readFileSync(join(dir, 'season.summary.json'), 'utf8')) as Record<string, unknown> };
  };
  const edited = (id: number): boolean => {
    const contact = context.emulator.contacts(context.token).find((each) => each.custom_fields.customerid === key(id));
    return contact !== undefined && (contact.custom_fields.firstName !== `First${id}` || !contact.tags.includes('crm'));
  };

  log(`  first import of ${rows} rows (verify: share ${sharePercent}%)`);
  await runNight(0);
  /** Edits on the platform not repaired yet: the customer, and the night before which it was made. */
  const open = new Map<number, number>();
  const waited: number[] = [];
  const result: VerifyNight[] = [];
  const perMille = (share: number): number => Math.max(1, Math.round((rows * share) / 1000));
  for (let night = 1; night <= nights; night++) {
    const ids = [...emails.keys()].sort(() => random() - 0.5);
    const changed = ids.slice(0, perMille(10));
    for (const id of changed) emails.set(id, `user${id}.n${night}@example.com`);
    // Agents edit contacts whose row does not change tonight (a changed row repairs its own fields anyway).
    const agents = ids.slice(changed.length, changed.length + perMille(5)).filter((id) => !open.has(id));
    for (const [index, id] of agents.entries()) {
      const contact = context.emulator.contacts(context.token).find((each) => each.custom_fields.customerid === key(id));
      if (contact === undefined) continue;
      const edit = index % 2 === 0 ? { method: 'PUT', path: `/v1/contact/${contact.id}`, body: { custom_fields: [{ name: 'firstName', value: `Agent${night}` }] } } : { method: 'DELETE', path: `/v1/contact/${contact.id}/tags`, body: { tags: ['crm'] } };
      const answer = await fetch(`${context.emulator.url}${edit.path}`, { method: edit.method, headers: { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' }, body: JSON.stringify(edit.body) });
      if (!answer.ok) throw new Error(`an agent's edit was refused: ${answer.status}`);
      open.set(id, night);
    }
    // The agents' calls were made before the night's counters start: `calls` are the job's alone.
    const run = await runNight(night);
    const { calls } = run;
    for (const [id, since] of [...open]) {
      if (edited(id)) continue;
      waited.push(night - since + 1);
      open.delete(id);
    }
    const verification = (run.summary.verification ?? {}) as Record<string, number>;
    const drift = Number(run.summary.drift ?? 0);
    const budget = Number(verification.budget ?? 0);
    result.push({ night, changedRows: changed.length, agentEdits: agents.length, verified: Number(run.summary.verified ?? 0), drift, budget, calls, minimumPlusShare: changed.length + drift + budget });
    log(`   night ${night}: ${calls} calls (minimum ${changed.length + drift} + share ${budget}), ${drift} drifted, ${open.size} edits open`);
  }
  return { rows, sharePercent, nights: result, waited, unrepaired: open.size };
}

export const VERIFY_SEASON_SECTION = '## A season without reconcile, with `verify`';

export function verifySeasonMarkdown(season: VerifySeasonResult): string {
  const calls = season.nights.reduce((sum, n) => sum + n.calls, 0);
  const bound = season.nights.reduce((sum, n) => sum + n.minimumPlusShare, 0);
  const over = season.nights.filter((n) => n.calls > n.minimumPlusShare).length;
  const edits = season.nights.reduce((sum, n) => sum + n.agentEdits, 0);
  const round = Math.ceil(100 / season.sharePercent);
  const maxWait = season.waited.length === 0 ? 0 : Math.max(...season.waited);
  const mean = season.waited.length === 0 ? 0 : season.waited.reduce((sum, n) => sum + n, 0) / season.waited.length;
  return [
    VERIFY_SEASON_SECTION,
    '',
    `The real CLI, ${season.nights.length} nights in a row, on one export of ${season.rows} customers with a state store and \`verify: { share: ${season.sharePercent}% }\`, and no reconcile (bench/verify-season.ts). Each night 1% of the rows change (the email), and agents edit 0.5% of the contacts on the platform (a first name, or the job's \`crm\` tag removed). Bound: an update per changed row, one write per drifted contact, and the share's reads (floor(${season.sharePercent}% x trusted keys)); a round of the share re-reads everyone in ${round} nights.`,
    '',
    '| night | rows changed | agent edits | verified | drift | share (reads) | calls | minimum + share |',
    '|---|---|---|---|---|---|---|---|',
    ...season.nights.map((n) => `| ${n.night} | ${n.changedRows} | ${n.agentEdits} | ${n.verified} | ${n.drift} | ${n.budget} | ${n.calls} | ${n.minimumPlusShare} |`),
    '',
    `Over the season: **${calls} calls for a bound of ${bound}** (${over === 0 ? 'every night within it' : `${over} nights over it`}). Of ${edits} agent edits, ${season.waited.length} were repaired, after ${mean.toFixed(1)} nights on average and ${maxWait} at most (a round is ${round} nights)${season.unrepaired > 0 ? `; ${season.unrepaired} were still open at the end (edited less than a round before it)` : ''}.`,
    '',
  ].join('\n');
}
