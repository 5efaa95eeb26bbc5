/**
 * The limiter bench's goal line (issue 41 item 19): a budget under its target is the load's only
 * when the answers measured allowed no more; otherwise the limiter missed it. A table of cases.
 */
import type { LimiterCase, LimiterFigures } from '../../bench/limiter-goals.js';
import { goalOf } from '../../bench/limiter-markdown.js';

const caseC: LimiterCase = { id: 'C', title: '20 per 2 s', group: 'contacts', rate: { limit: 20, periodMs: 2_000 }, redis: false, runMs: 30_000, target: 0.88 };
const figures = (budgetUsed: number, meanAnswerMs: number): LimiterFigures => ({ kind: 'slots', calls: 270, rateLimited: 0, mostInAnyWindow: 20, budgetUsed, meanAnswerMs });

describe('the limiter bench\'s goal of a case', () => {
  it.each([
    // Quiet machine: answers of the nominal 200 ms allow 0.909.
    [0.9, 200, '0 429s: met, >= 0.88: met'],
    // Loaded: answers of 420 ms allow 0.826; 0.825 is all they allowed: the load's.
    [0.825, 420, "0 429s: met, >= 0.88: missed, the load's (answers allowed 0.826)"],
    // Answers allowed 0.909 and the limiter reached 0.85: its own miss.
    [0.85, 200, '0 429s: met, >= 0.88: missed'],
    // Answers allowed 0.826 and the limiter reached 0.78: its own miss, under what the load left.
    [0.78, 420, '0 429s: met, >= 0.88: missed'],
  ])('budget %f, answers of %i ms -> %s', (budget, answerMs, goal) => {
    expect(goalOf(figures(budget, answerMs), caseC)).toBe(goal);
  });

  it('a 429 is a miss whatever the budget', () => {
    expect(goalOf({ ...figures(0.95, 200), rateLimited: 1 }, caseC)).toBe('0 429s: missed, >= 0.88: met');
  });
});
