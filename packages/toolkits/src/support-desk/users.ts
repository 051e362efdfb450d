/** Workspace users, read a page at a time or all at once, and matched by fuzzy name. */
import { toolError, type ToolContext } from '@quiver/core';
import { CANDIDATES, judgeConfidences, round } from './acceptance.js';
import { matchNames } from './name-matching.js';
import { answers, collect, pylon, type Outcome } from './upstream.js';

export interface User {
  id: string;
  name: string;
  email: string;
  emails?: string[];
  [field: string]: unknown;
}

/** Users are a support team, not a customer base: a bounded scan reads them all. */
const USER_PAGES = 50;
const PAGE_SIZE = 100;

export async function allUsers(context: ToolContext): Promise<Outcome<User[]>> {
  const read = await collect<User>(pylon.getUsers, { limit: PAGE_SIZE }, context, answers.people, USER_PAGES);
  return 'error' in read ? read : { value: read.value.items };
}

export async function rankUsers(query: string, context: ToolContext) {
  const users = await allUsers(context);
  if ('error' in users) return users;
  return {
    value: await matchNames(
      users.value,
      query,
      (user) => [user.name],
      (user) => user.emails ?? (user.email ? [user.email] : []),
    ),
  };
}

export const userSummary = (user: User) => ({ id: user.id, name: user.name, email: user.email });

export type UserResolution =
  | { user: ReturnType<typeof userSummary>; confidence?: number }
  | { user: null; candidates: Array<ReturnType<typeof userSummary> & { confidence: number }>; message: string };

/** The user by id, or by name when the best match is accepted; otherwise the candidates. */
export async function resolveUser(lookupBy: 'id' | 'name', value: string, autoAccept: boolean, context: ToolContext): Promise<Outcome<UserResolution>> {
  if (lookupBy === 'id') {
    const users = await allUsers(context);
    if ('error' in users) return users;
    const user = users.value.find((candidate) => candidate.id === value.trim());
    return user
      ? { value: { user: userSummary(user) } }
      : toolError('UPSTREAM_RUNTIME_NOT_FOUND', `No user has the id ${value}. Find one with SearchUsers or ListUsers.`);
  }
  const ranked = await rankUsers(value, context);
  if ('error' in ranked) return ranked;
  const verdict = judgeConfidences(
    ranked.value.map((match) => match.confidence),
    autoAccept,
  );
  if (verdict.accepted) return { value: { user: userSummary(ranked.value[0]!.item), confidence: round(ranked.value[0]!.confidence) } };
  const candidates = ranked.value.slice(0, CANDIDATES).map((match) => ({ ...userSummary(match.item), confidence: round(match.confidence) }));
  const next = candidates.length ? 'Call again with user_lookup_by "id" and the id of the intended user.' : `No user's name resembles '${value}'.`;
  return { value: { user: null, candidates, message: `${verdict.reason} ${next}` } };
}
