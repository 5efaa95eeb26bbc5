/** The limiter section of bench/RESULTS.md (issue 14). */
import { bestAtAnswers, type LimiterBenchResults, type LimiterCase, type LimiterFigures } from './limiter-goals.js';
import type { MachineInfo } from './machine-info.js';

type Push = (...lines: string[]) => void;

const fixed = (n: number, digits: number): string => n.toFixed(digits);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

export function renderLimiter(push: Push, results: LimiterBenchResults): void {
  push(
    '## The limiter against a strict window',
    '',
    'The API client alone (no pipeline) in the bench process, 16 callers keeping the limiter busy, against an emulator whose rate check is a strict sliding window. ' +
      '**slots** is the product\'s limiter: a call holds one of the limit\'s N slots from its start until one window after its answer; calls take turns before they ask for a slot, the first N of a process window / limit apart, later ones 3/4 of that, so a call waiting for a slot starts the moment one comes back (docs/decisions.md). ' +
      '**old spacing** is the limiter before issue 14, kept in the bench only (bench/old-start-spacing.ts): starts spaced (window + 2%, at least 100 ms) / limit, rounded up when shared through Redis. ' +
      'Both run side by side, each on its own channel (own budget) of one emulator. "Delay in" is the emulator\'s `inboundJitter`, waited before its rate check, drawn per request. ' +
      'The server counts 429s and the most calls that reached its check in any window (429s included). ' +
      'Budget used = accepted calls from one window after the start to the end of the run, over what the limit allows in that time: the steady part, past the first window in which no slot has yet waited for an answer. ' +
      'Best = window / (window + mean delay in), what any limiter that waits for answers can use over a long run. A run of a dozen turns of each slot can pass it by a few points when its first window was quick (the Redis cases: each process spaces its own calls, so two fill the slots in half the time): the slots then come back in step, and the measure, from one window after the start, catches one more turn of most of them. ' +
      'Answers = the mean time from a call\'s start to its answer as the client measured it, and the best at that answer time (window / (window + it)): on a loaded machine the answers come later than the delay in (the emulator and the callers share this process, and it waits for a core), so the best falls with them; the event loop\'s mean lateness over the case is in the reading below. A budget under its goal and near the best at the answers measured is the load\'s, not the limiter\'s. ' +
      'Redis cases run two registries on one Redis in this process (two Bottleneck clients, as two processes are). ' +
      'Case A measures the one-minute window at 600 calls a minute rather than the bench\'s 6,000 to keep the run short and the machine unloaded: the cost of waiting for answers is the answer time over the window, whatever the limit; the API scenarios above run at 6,000 a minute with the same limiter.',
    '',
    '| case | window | limiter | run (s) | calls | 429s | most in a window / limit | budget used | best | answers (ms): best at them | goal |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  for (const result of results.cases) {
    const spec = result.case;
    for (const f of result.figures) {
      const goal = f.kind !== 'slots' ? '' : goalOf(f, spec);
      push(
        `| ${spec.id}. ${spec.title} | ${int(spec.rate.limit)} per ${fixed(spec.rate.periodMs / 1000, 0)} s | ${f.kind} | ${fixed(spec.runMs / 1000, 0)} | ${int(f.calls)} | ${f.rateLimited} | ${f.mostInAnyWindow} / ${spec.rate.limit} | ${fixed(f.budgetUsed, 3)} | ${fixed(result.theory, 3)} | ${fixed(f.meanAnswerMs, 0)}: ${fixed(bestAtAnswers(spec, f), 3)} | ${goal} |`,
      );
    }
  }
  if (results.redisSkipped !== undefined) push('', `Redis cases skipped: ${results.redisSkipped}.`);
  const slots = results.cases.flatMap((result) => result.figures.filter((f) => f.kind === 'slots').map((f) => ({ f, result })));
  const over = slots.filter(({ f, result }) => f.rateLimited > 0 || f.mostInAnyWindow > result.case.rate.limit);
  const missed = slots.filter(({ f, result }) => result.case.target !== undefined && f.budgetUsed < result.case.target);
  const old = results.cases.flatMap((result) => result.figures.filter((f) => f.kind !== 'slots'));
  push(
    '',
    `Reading: the slots drew ${slots.reduce((sum, { f }) => sum + f.rateLimited, 0)} 429s in all cases (goal 0) and the server never saw more than the limit in a window${over.length > 0 ? `, except ${over.map(({ result }) => result.case.id).join(', ')}` : ''}; ` +
      `${missed.length === 0 ? 'every budget goal is met' : `budget goals missed: ${missed.map(({ f, result }) => `${result.case.id} (${fixed(f.budgetUsed, 3)} for ${result.case.target})`).join(', ')}`}. ` +
      `The old spacing drew ${old.reduce((sum, f) => sum + f.rateLimited, 0)} 429s over the same cases. ` +
      `The event loop was late by ${results.cases.map((result) => `${result.case.id} ${fixed(result.loopDelayMs, 1)}`).join(', ')} ms on average.`,
    '',
  );
}

/**
 * The goals of a case: no 429, and the budget target. A budget under its target is said to be the
 * load's when the answers measured allowed no more (the budget within 0.01 of the best at them,
 * and that best itself under the target); otherwise it is the limiter's miss.
 */
export function goalOf(f: LimiterFigures, spec: LimiterCase): string {
  const clean = f.rateLimited === 0 && f.mostInAnyWindow <= spec.rate.limit;
  const target = spec.target;
  const best = bestAtAnswers(spec, f);
  const loads = target !== undefined && best < target && f.budgetUsed >= best - 0.01;
  const budget = target === undefined ? '' : `, >= ${target}: ${f.budgetUsed >= target ? 'met' : loads ? `missed, the load's (answers allowed ${fixed(best, 3)})` : 'missed'}`;
  return `0 429s: ${clean ? 'met' : 'missed'}${budget}`;
}

const HEADING = '## The limiter against a strict window';

/** `markdown` (a RESULTS.md) with its limiter section measured again (`--limiter-only --out`). */
export function replaceLimiterSection(markdown: string, results: LimiterBenchResults, machine: MachineInfo): string {
  const start = markdown.indexOf(HEADING);
  if (start < 0) throw new Error(`no "${HEADING}" section to replace: run the whole bench`);
  const next = markdown.indexOf('\n## ', start + HEADING.length);
  const lines: string[] = [];
  renderLimiter((...more) => void lines.push(...more), results);
  lines.push(`This section was measured again on its own (\`node dist/bench/run.js --limiter-only --out bench/RESULTS.md\`) on ${machine.date}, load average ${machine.loadAverage.toFixed(2)} at its start.`, '', '');
  return markdown.slice(0, start) + lines.join('\n') + (next < 0 ? '' : markdown.slice(next + 1));
}
