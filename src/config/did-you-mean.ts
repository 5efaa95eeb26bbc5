import { distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `word` when it is close enough to be a typo: same letters in another
 * case, or at most two edits (or one per three characters in long words), fewer than the word's
 * length. Undefined when nothing is that close, so a message never suggests an unrelated word.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  // Two edits: a swap of two letters (`mian`) costs two in plain Levenshtein.
  const budget = Math.min(Math.max(2, Math.floor(word.length / 3)), word.length - 1);
  let best: { candidate: string; cost: number } | undefined;
  for (const candidate of candidates) {
    const cost = distance(lower, candidate.toLowerCase());
    if (cost <= budget && (best === undefined || cost < best.cost)) best = { candidate, cost };
  }
  return best?.candidate;
}
