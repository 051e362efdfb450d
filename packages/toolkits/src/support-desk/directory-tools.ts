/** The tools over the workspace's people and teams: listing, fuzzy search, and a team with its members. */
import type { ToolContext, ToolHandler } from '@quiver/core';
import { CANDIDATES, judgeConfidences, round } from './acceptance.js';
import { matchNames } from './name-matching.js';
import { answers, collect, pylon, send, type Page } from './upstream.js';
import { rankUsers, userSummary } from './users.js';

/** Spec 8: users and contacts come 20 to a page unless asked otherwise. */
const DEFAULT_PAGE_SIZE = 20;
/** Spec 8: a contact search scans 10 pages unless asked otherwise. */
const DEFAULT_CONTACT_PAGES = 10;
const SCAN_PAGE_SIZE = 100;
const TEAM_PAGES = 50;

interface Contact {
  id: string;
  name: string;
  email?: string;
  emails?: string[];
  account?: { id: string };
  [field: string]: unknown;
}

interface Team {
  id: string;
  name: string;
  users?: Array<{ id: string; email?: string }>;
}

const ListUsers: ToolHandler = (input, context) => send(pylon.getUsers, { cursor: input.cursor, limit: input.limit ?? DEFAULT_PAGE_SIZE }, context);

const ListContacts: ToolHandler = (input, context) => send(pylon.getContacts, { cursor: input.cursor, limit: input.limit ?? DEFAULT_PAGE_SIZE }, context);

const SearchUsers: ToolHandler = async (input, context) => {
  const ranked = await rankUsers(input.query as string, context);
  if ('error' in ranked) return ranked;
  const verdict = judgeConfidences(
    ranked.value.map((match) => match.confidence),
    input.auto_accept_matches === true,
  );
  const results = ranked.value.slice(0, CANDIDATES).map((match) => ({ ...userSummary(match.item), confidence: round(match.confidence) }));
  if (verdict.accepted) return { value: { auto_accepted: true, user: ranked.value[0]!.item, confidence: results[0]!.confidence, results } };
  return { value: { auto_accepted: false, ...(input.auto_accept_matches === true && { message: verdict.reason }), results } };
};

const contactSummary = (contact: Contact) => ({ id: contact.id, name: contact.name, email: contact.email ?? null, account_id: contact.account?.id ?? null });

/** An email address is looked up exactly first (one call); a name, or an address not found, scans pages. */
async function findContacts(query: string, maxPages: number, context: ToolContext) {
  if (query.includes('@')) {
    const exact = await send<Page<Contact>>(
      pylon.searchContacts,
      { filter: { field: 'email', operator: 'equals', value: query.trim() }, limit: CANDIDATES },
      context,
      answers.matches,
    );
    if ('error' in exact) return exact;
    if (exact.value.data.length) return { value: { matches: exact.value.data.map((item) => ({ item, confidence: 1 })), pages: 0, complete: true } };
  }
  const scanned = await collect<Contact>(pylon.getContacts, { limit: SCAN_PAGE_SIZE }, context, answers.people, maxPages);
  if ('error' in scanned) return scanned;
  const { items, pages, complete } = scanned.value;
  return {
    value: {
      matches: await matchNames(
        items,
        query,
        (contact) => [contact.name],
        (contact) => contact.emails ?? (contact.email ? [contact.email] : []),
      ),
      pages,
      complete,
    },
  };
}

const SearchContacts: ToolHandler = async (input, context) => {
  const found = await findContacts(input.query as string, (input.max_pages as number | undefined) ?? DEFAULT_CONTACT_PAGES, context);
  if ('error' in found) return found;
  const { matches, pages, complete } = found.value;
  const verdict = judgeConfidences(
    matches.map((match) => match.confidence),
    input.auto_accept_matches === true,
  );
  const results = matches.slice(0, CANDIDATES).map((match) => ({ ...contactSummary(match.item), confidence: round(match.confidence) }));
  const scan = { pages_scanned: pages, scan_complete: complete };
  if (verdict.accepted) return { value: { auto_accepted: true, contact: matches[0]!.item, confidence: results[0]!.confidence, results, ...scan } };
  return { value: { auto_accepted: false, ...(input.auto_accept_matches === true && { message: verdict.reason }), results, ...scan } };
};

const GetTeamAndAssignment: ToolHandler = async (input, context) => {
  const value = (input.value as string).trim();
  if (input.lookup_by === 'id') {
    const team = await send<{ data: Team }>(pylon.getTeam, { id: value }, context, answers.team);
    if ('error' in team) return team.error.kind === 'UPSTREAM_RUNTIME_NOT_FOUND' ? { error: { ...team.error, message: `No team has the id ${value}.` } } : team;
    return { value: { team: team.value.data } };
  }
  const teams = await collect<Team>(pylon.getTeams, {}, context, answers.people, TEAM_PAGES);
  if ('error' in teams) return teams;
  const ranked = await matchNames(teams.value.items, value, (team) => [team.name]);
  const verdict = judgeConfidences(
    ranked.map((match) => match.confidence),
    input.auto_accept_matches === true,
  );
  if (!verdict.accepted) {
    const candidates = ranked.slice(0, CANDIDATES).map((match) => ({ id: match.item.id, name: match.item.name, confidence: round(match.confidence) }));
    const next = candidates.length ? 'Call again with lookup_by "id" and the id of the intended team.' : `No team's name resembles '${value}'.`;
    return { value: { team: null, candidates, message: `${verdict.reason} ${next}` } };
  }
  // The team as Pylon answers it on its own, members included.
  const team = await send<{ data: Team }>(pylon.getTeam, { id: ranked[0]!.item.id }, context, answers.team);
  if ('error' in team) return team;
  return { value: { team: team.value.data, match: { confidence: round(ranked[0]!.confidence) } } };
};

export const directoryHandlers: Record<string, ToolHandler> = { ListUsers, ListContacts, SearchUsers, SearchContacts, GetTeamAndAssignment };
