/**
 * A month of nightly runs (issue 13): one CRM export of 2,000 customers synced 30 nights in a row
 * by the real CLI, with a state store, `tags.prune` and `onMissing: tag`. Each night 1% of the rows
 * change (half a field, half a segment dropped), 0.2% of the customers leave the export and 0.2%
 * new ones join. Per night: the calls made next to the fewest the changes allow, and at the end
 * what the platform holds (one contact per key, each departed key tagged once).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../src/emulator/index.js';
import { expectExit, runCli, type CliPaths } from './cli-child.js';

export interface Night {
  night: number;
  changedField: number;
  droppedSegment: number;
  departed: number;
  joined: number;
  calls: number;
  minimum: number;
  rateLimited: number;
  wallMs: number;
}

export interface MonthResult {
  rows: number;
  /** The job had `match.prefetch` (its first import pages once, on an empty channel). */
  prefetch: boolean;
  firstImport: { calls: number; minimum: number; wallMs: number };
  nights: Night[];
  /** Contacts on the platform, and distinct keys ever in the file (equal: no duplicate). */
  contacts: number;
  keysEver: number;
  /** Departed keys, and contacts carrying `left-crm` (equal: each tagged, none twice). */
  departedKeys: number;
  taggedLeft: number;
}

interface Customer {
  id: number;
  email: string;
  segments: string[];
}

const SEGMENTS = ['newsletter', 'vip', 'wholesale', 'retail', 'eu', 'apac'];

/** `prefetch`: every contact carries the marker `source: crm` and the job has `match.prefetch` by it (issue 25). */
const JOBS = (input: string, state: string, prefetch: boolean) => `connections:
  bench:
    baseUrl: \${BENCH_API_URL}
    token: \${BENCH_CHANNEL_TOKEN}
    rateLimits: { contacts: "\${BENCH_CONTACTS_RATE}" }
jobs:
  - name: nightly
    connection: bench
    input: ${JSON.stringify(input)}
    state: ${JSON.stringify(state)}
    key: { column: customer_id, field: customerid }
    fields: { firstName: first_name, email: { column: email, transform: email }${prefetch ? ', source: { value: crm }' : ''} }
    tags: { column: segments, separator: ";", prune: true }
    onMissing: { action: tag, tags: [left-crm] }
${prefetch ? '    match: { prefetch: { field: source, value: crm } }\n' : ''}`;

/** A tiny deterministic generator, so every bench run makes the same month. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

function csv(customers: readonly Customer[]): string {
  const lines = ['customer_id,first_name,email,segments'];
  for (const c of customers) lines.push(`M${String(c.id).padStart(6, '0')},First${c.id},${c.email},${c.segments.join(';')}`);
  return `${lines.join('\n')}\n`;
}

export async function runMonthOfNights(
  context: { emulator: RunningEmulator; token: string; rate: string; workDir: string; cli: CliPaths },
  rows: number,
  nights: number,
  log: (line: string) => void,
  prefetch = false,
): Promise<MonthResult> {
  const random = seeded(13);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let nextId = 1;
  const newCustomer = (): Customer => {
    const id = nextId++;
    // Two or three segments each, so a dropped one leaves at least one.
    const segments = [...new Set([pick(SEGMENTS), pick(SEGMENTS), pick(SEGMENTS)])];
    if (segments.length === 1) segments.push(segments[0] === 'vip' ? 'eu' : 'vip');
    return { id, email: `user${id}@example.com`, segments };
  };
  let customers = Array.from({ length: rows }, newCustomer);
  const input = join(context.workDir, 'month.csv');
  const jobsFile = join(context.workDir, 'month.yaml');
  writeFileSync(jobsFile, JOBS(input, join(context.workDir, `month${prefetch ? '-prefetch' : ''}.db`), prefetch));
  const env = { BENCH_API_URL: context.emulator.url, BENCH_CHANNEL_TOKEN: context.token, BENCH_CONTACTS_RATE: context.rate };
  context.emulator.reset(context.token);

  const runNight = async (name: string): Promise<{ calls: number; rateLimited: number; wallMs: number }> => {
    writeFileSync(input, csv(customers));
    const before = context.emulator.counters(context.token);
    const run = await runCli(context.cli, ['run', jobsFile, '--report-dir', join(context.workDir, `month-${name}`), '--quiet'], { cwd: context.workDir, env });
    expectExit(run, `month night ${name}`);
    const after = context.emulator.counters(context.token);
    return { calls: after.total.received - before.total.received, rateLimited: after.total.rateLimited - before.total.rateLimited, wallMs: run.wallMs };
  };

  log(`  first import of ${rows} rows`);
  const first = await runNight('0');
  // A new key: a search (upsert cannot know it is new), a create, one add-tags call (3 tags at most).
  // With prefetch, the empty channel's one page: a first import pages (row/prefetch-choice.ts).
  const firstImport = { calls: first.calls, minimum: rows * 3 + (prefetch ? 1 : 0), wallMs: first.wallMs };
  const result: Night[] = [];
  let departedKeys = 0;
  const perMille = (share: number) => Math.max(1, Math.round((rows * share) / 1000));
  for (let night = 1; night <= nights; night++) {
    const changes = perMille(10);
    const leaving = perMille(2);
    const joining = perMille(2);
    // Distinct customers: the first `changes` of a shuffle change, the next `leaving` leave.
    const order = customers.map((_, index) => index).sort(() => random() - 0.5);
    const changed = new Set(order.slice(0, changes));
    const left = new Set(order.slice(changes, changes + leaving));
    let changedField = 0;
    let droppedSegment = 0;
    customers = customers.flatMap((customer, index) => {
      if (left.has(index)) return [];
      if (!changed.has(index)) return [customer];
      // Half drop a segment (only from a customer with two or more left), half change the email.
      if (droppedSegment < changedField && customer.segments.length > 1) {
        droppedSegment++;
        return [{ ...customer, segments: customer.segments.slice(1) }];
      }
      changedField++;
      return [{ ...customer, email: `user${customer.id}.n${night}@example.com` }];
    });
    for (let i = 0; i < joining; i++) customers.push(newCustomer());
    departedKeys += leaving;
    const run = await runNight(String(night));
    // A field: one update by id; a dropped segment: one remove-tags (the state store knows the
    // contact and its tags: no search); a departed key: one add-tags; a new key: 3, as above.
    const minimum = changedField + droppedSegment + leaving + joining * 3;
    result.push({ night, changedField, droppedSegment, departed: leaving, joined: joining, calls: run.calls, minimum, rateLimited: run.rateLimited, wallMs: run.wallMs });
    log(`   night ${night}: ${run.calls} calls (minimum ${minimum}), ${(run.wallMs / 1000).toFixed(1)} s`);
  }
  const contacts = context.emulator.contacts(context.token);
  return {
    rows,
    prefetch,
    firstImport,
    nights: result,
    contacts: contacts.length,
    keysEver: nextId - 1,
    departedKeys,
    taggedLeft: contacts.filter((contact) => contact.tags.includes('left-crm')).length,
  };
}

export const MONTH_SECTION = '## A month of nightly runs';
export const MONTH_PREFETCH_SECTION = '## A month of nightly runs with `match.prefetch`';

export function monthMarkdown(month: MonthResult): string {
  const calls = month.nights.reduce((sum, n) => sum + n.calls, 0);
  const minimum = month.nights.reduce((sum, n) => sum + n.minimum, 0);
  const over = month.nights.filter((n) => n.calls !== n.minimum).length;
  const rateLimited = month.nights.reduce((sum, n) => sum + n.rateLimited, 0);
  const lines = [
    month.prefetch ? MONTH_PREFETCH_SECTION : MONTH_SECTION,
    '',
    ...(month.prefetch
      ? [
          'The same month with `match.prefetch` configured (every contact carries `source: crm`, the job pages by it): the pages are read only when they can save calls (issue 25), so a night whose keys the state store knows makes none, and the minimum is the same as without it. The first import pages once (an empty channel: one call).',
          '',
        ]
      : []),
    `The real CLI, ${month.nights.length} nights in a row, on one export of ${month.rows} customers with a state store, \`tags.prune: true\` and \`onMissing: {action: tag, tags: [left-crm]}\` (bench/month-of-nights.ts). Each night 1% of the rows change (half a field, half a segment dropped), 0.2% of the customers leave the export and 0.2% new ones join. Minimum: an update per changed field and a remove-tags per dropped segment (the state store knows the contact and its tags: no search), an add-tags per departed key, and a search, a create and an add-tags per new key (upsert cannot know a key is new without a search).`,
    '',
    `First import: ${month.firstImport.calls} calls (minimum ${month.firstImport.minimum}), ${(month.firstImport.wallMs / 1000).toFixed(1)} s.`,
    '',
    '| night | fields changed | segments dropped | left | joined | calls | minimum | 429s | wall (s) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...month.nights.map((n) => `| ${n.night} | ${n.changedField} | ${n.droppedSegment} | ${n.departed} | ${n.joined} | ${n.calls} | ${n.minimum} | ${n.rateLimited} | ${(n.wallMs / 1000).toFixed(1)} |`),
    '',
    `Over the month: **${calls} calls for a minimum of ${minimum}** (${over === 0 ? 'every night at its minimum' : `${over} nights off their minimum`}), ${rateLimited} 429s. At the end the platform holds ${month.contacts} contacts for the ${month.keysEver} keys ever in the export (${month.contacts === month.keysEver ? 'no duplicate' : 'DUPLICATES'}), and ${month.taggedLeft} carry \`left-crm\` for the ${month.departedKeys} customers who left (${month.taggedLeft === month.departedKeys ? 'each tagged once' : 'MISMATCH'}).`,
    '',
  ];
  return lines.join('\n');
}
