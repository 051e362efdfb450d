/**
 * When a search or name match may be acted on without asking (spec 4.4 and 7): only with
 * auto_accept_matches true, and only when the tool's threshold is met. Otherwise the ranked
 * candidates go back with a message saying why and what to do next.
 */

/** Names: confidence of 90 percent or more (AssignIssue, GetTeamAndAssignment, SearchUsers, SearchContacts). */
export const CONFIDENCE = 0.9;
/** Issue search: the best result leads the runner-up by 85 percent of its score (GetIssue, SearchIssues, UpdateIssueStatus). */
export const SCORE_GAP = 0.85;
/** Issue search in AssignIssue: "90 percent confidence", measured as the same lead. */
export const ASSIGN_SCORE_GAP = 0.9;

/** How many candidates an unresolved lookup proposes. */
export const CANDIDATES = 10;

/** How far the best score leads the runner-up, as a share of the best: 1 for a lone result. */
export function scoreGap(scores: readonly number[]): number {
  const [best, second] = scores;
  if (best === undefined) return 0;
  if (second === undefined) return 1;
  return best > 0 ? 1 - second / best : 0;
}

export type Verdict = { accepted: true } | { accepted: false; reason: string };

/** Issue search: accept the best result when asked to and its lead reaches `required`. */
export function judgeScores(scores: readonly number[], autoAccept: boolean, required: number): Verdict {
  if (!scores.length) return { accepted: false, reason: 'Nothing matched.' };
  if (!autoAccept) return { accepted: false, reason: notAsked };
  const gap = scoreGap(scores);
  if (gap >= required) return { accepted: true };
  return { accepted: false, reason: `The best result leads the runner-up by ${percent(gap)} of its score; ${percent(required)} is required to accept it.` };
}

/** Names: accept the best when asked to, its confidence reaches `required`, and no other candidate's does. */
export function judgeConfidences(confidences: readonly number[], autoAccept: boolean, required = CONFIDENCE): Verdict {
  const [best, second] = confidences;
  if (best === undefined) return { accepted: false, reason: 'Nothing matched.' };
  if (!autoAccept) return { accepted: false, reason: notAsked };
  if (best < required) return { accepted: false, reason: `The best match has ${percent(best)} confidence; ${percent(required)} is required to accept it.` };
  if (second !== undefined && second >= required)
    return { accepted: false, reason: `Several candidates reach ${percent(required)} confidence, so none is accepted.` };
  return { accepted: true };
}

const notAsked = 'auto_accept_matches is false, so no match was accepted.';

export const percent = (share: number) => `${Math.floor(share * 100)}%`;

/** Four decimals are plenty to compare scores by. */
export const round = (value: number) => Math.round(value * 10_000) / 10_000;
