import type Database from 'better-sqlite3';
import { API, createOrganizationTables, organization, organizationSimple, page, simpleUser, textParam, type Organization } from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type GithubUser, type Handler } from './context.js';

/**
 * Organization membership: members and owners, invitations (pending memberships), public
 * membership, and outside collaborators.
 *
 * An organization appears on first mention with the caller as its owner (see common.ts). Adding
 * someone makes a pending membership, which becomes active when that user accepts it through
 * update-membership-for-authenticated-user. Only owners manage members.
 *
 * Converting a member to an outside collaborator takes effect at once; with `async: true` GitHub
 * queues the job and answers 202, and the emulator's queue runs the job before answering, so the
 * change is visible to the very next read either way.
 */

export function createOrgMembershipTables(db: Database.Database): void {
  createOrganizationTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS org_outside_collaborators (
      org_id INTEGER NOT NULL,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      PRIMARY KEY (org_id, user_id)
    );
  `);
}

type Role = 'admin' | 'member';

interface Membership {
  org_id: number;
  user_id: number;
  login: string;
  role: Role;
  state: 'active' | 'pending';
  public: number;
  created_at: number;
}

function orgOf(req: GithubRequest, ctx: GithubContext): Organization {
  createOrgMembershipTables(ctx.db);
  return organization(ctx, req.params.org ?? '', req.user);
}

export function membershipOf(db: Database.Database, org: Organization, user: GithubUser): Membership | undefined {
  return db.prepare('SELECT * FROM org_memberships WHERE org_id = ? AND user_id = ?').get(org.id, user.id) as Membership | undefined;
}

export const isActiveMember = (db: Database.Database, org: Organization, user: GithubUser) => membershipOf(db, org, user)?.state === 'active';

function requireOwner(db: Database.Database, org: Organization, user: GithubUser): void {
  const membership = membershipOf(db, org, user);
  if (membership?.state !== 'active' || membership.role !== 'admin') {
    throw new GithubError(403, `You must be an owner of ${org.login} to do that.`);
  }
}

function activeMembers(db: Database.Database, org: Organization): Membership[] {
  return db.prepare(`SELECT * FROM org_memberships WHERE org_id = ? AND state = 'active' ORDER BY login`).all(org.id) as Membership[];
}

const ownerCount = (db: Database.Database, org: Organization) => activeMembers(db, org).filter((m) => m.role === 'admin').length;

function membershipView(org: Organization, m: Membership) {
  return {
    url: `${API}/orgs/${org.login}/memberships/${m.login}`,
    state: m.state,
    role: m.role,
    organization_url: `${API}/orgs/${org.login}`,
    organization: organizationSimple(org),
    user: simpleUser({ login: m.login, id: m.user_id }),
  };
}

const userOfMembership = (m: { login: string; user_id: number }) => simpleUser({ login: m.login, id: m.user_id });

// ---------------------------------------------------------------------------------------------
// Members

function listMembers(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const role = textParam(req.query.role) ?? 'all';
  // Outsiders only see members who made their membership public.
  const insider = isActiveMember(ctx.db, org, req.user);
  const members = activeMembers(ctx.db, org).filter((m) => (insider || m.public === 1) && (role === 'all' || m.role === role));
  return { status: 200, body: page(members, req.query).map(userOfMembership) };
}

function checkMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const user = ctx.user(req.params.username ?? '');
  if (!isActiveMember(ctx.db, org, req.user)) {
    return { status: 302, headers: { Location: `${API}/orgs/${org.login}/public_members/${user.login}` } };
  }
  if (!isActiveMember(ctx.db, org, user)) throw notFound();
  return { status: 204 };
}

function removeMember(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  requireOwner(ctx.db, org, req.user);
  const user = ctx.user(req.params.username ?? '');
  leave(ctx.db, org, user);
  return { status: 204 };
}

function leave(db: Database.Database, org: Organization, user: GithubUser): void {
  const membership = membershipOf(db, org, user);
  if (membership?.state === 'active' && membership.role === 'admin' && ownerCount(db, org) === 1) {
    throw new GithubError(403, `${user.login} is the last owner of ${org.login} and cannot leave it.`);
  }
  db.prepare('DELETE FROM org_memberships WHERE org_id = ? AND user_id = ?').run(org.id, user.id);
}

function getMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const membership = membershipOf(ctx.db, org, ctx.user(req.params.username ?? ''));
  if (!membership) throw notFound();
  return { status: 200, body: membershipView(org, membership) };
}

function setMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  requireOwner(ctx.db, org, req.user);
  const user = ctx.user(req.params.username ?? '');
  const role: Role = (req.body as { role?: Role } | undefined)?.role ?? 'member';
  const existing = membershipOf(ctx.db, org, user);
  if (existing) {
    if (existing.role === 'admin' && role !== 'admin' && existing.state === 'active' && ownerCount(ctx.db, org) === 1) {
      throw new GithubError(403, `${user.login} is the last owner of ${org.login}.`);
    }
    ctx.db.prepare('UPDATE org_memberships SET role = ? WHERE org_id = ? AND user_id = ?').run(role, org.id, user.id);
  } else {
    ctx.db
      .prepare(`INSERT INTO org_memberships (org_id, user_id, login, role, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?)`)
      .run(org.id, user.id, user.login, role, ctx.clock.now());
  }
  return { status: 200, body: membershipView(org, membershipOf(ctx.db, org, user)!) };
}

function removeMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  requireOwner(ctx.db, org, req.user);
  const user = ctx.user(req.params.username ?? '');
  if (!membershipOf(ctx.db, org, user)) throw notFound();
  leave(ctx.db, org, user);
  return { status: 204 };
}

// ---------------------------------------------------------------------------------------------
// The authenticated user's memberships

function listMyMemberships(req: GithubRequest, ctx: GithubContext) {
  createOrgMembershipTables(ctx.db);
  const state = textParam(req.query.state);
  const rows = ctx.db
    .prepare(
      'SELECT m.*, o.login AS org_login, o.created_at AS org_created_at FROM org_memberships m JOIN organizations o ON o.id = m.org_id WHERE m.user_id = ? ORDER BY o.login',
    )
    .all(req.user.id) as Array<Membership & { org_login: string; org_created_at: number }>;
  const body = rows
    .filter((m) => state === undefined || m.state === state)
    .map((m) => membershipView({ id: m.org_id, login: m.org_login, createdAt: m.org_created_at }, m));
  return { status: 200, body: page(body, req.query) };
}

function getMyMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const membership = membershipOf(ctx.db, org, req.user);
  if (!membership) throw notFound();
  return { status: 200, body: membershipView(org, membership) };
}

/** Accepting an invitation; an outside collaborator who joins stops being one. */
function updateMyMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  if (!membershipOf(ctx.db, org, req.user)) throw notFound();
  ctx.db.prepare(`UPDATE org_memberships SET state = 'active' WHERE org_id = ? AND user_id = ?`).run(org.id, req.user.id);
  ctx.db.prepare('DELETE FROM org_outside_collaborators WHERE org_id = ? AND user_id = ?').run(org.id, req.user.id);
  return { status: 200, body: membershipView(org, membershipOf(ctx.db, org, req.user)!) };
}

// ---------------------------------------------------------------------------------------------
// Public membership

function listPublicMembers(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const members = activeMembers(ctx.db, org).filter((m) => m.public === 1);
  return { status: 200, body: page(members, req.query).map(userOfMembership) };
}

function checkPublicMembership(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const membership = membershipOf(ctx.db, org, ctx.user(req.params.username ?? ''));
  if (membership?.state !== 'active' || membership.public !== 1) throw notFound();
  return { status: 204 };
}

function setPublicity(req: GithubRequest, ctx: GithubContext, visible: boolean) {
  const org = orgOf(req, ctx);
  if ((req.params.username ?? '').toLowerCase() !== req.user.login.toLowerCase()) {
    throw new GithubError(403, 'You can only publicize or conceal your own membership.');
  }
  if (!isActiveMember(ctx.db, org, req.user)) throw new GithubError(403, `You are not a member of ${org.login}.`);
  ctx.db.prepare('UPDATE org_memberships SET public = ? WHERE org_id = ? AND user_id = ?').run(visible ? 1 : 0, org.id, req.user.id);
  return { status: 204 };
}

// ---------------------------------------------------------------------------------------------
// Outside collaborators

function convertToOutsideCollaborator(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  requireOwner(ctx.db, org, req.user);
  const user = ctx.user(req.params.username ?? '');
  const membership = membershipOf(ctx.db, org, user);
  if (membership?.state !== 'active') throw new GithubError(403, `${user.login} is not a member of the ${org.login} organization.`);
  if (membership.role === 'admin' && ownerCount(ctx.db, org) === 1) {
    throw new GithubError(403, 'Cannot convert the last owner to an outside collaborator');
  }
  ctx.db.transaction(() => {
    ctx.db.prepare('DELETE FROM org_memberships WHERE org_id = ? AND user_id = ?').run(org.id, user.id);
    ctx.db.prepare('INSERT OR IGNORE INTO org_outside_collaborators (org_id, user_id, login) VALUES (?, ?, ?)').run(org.id, user.id, user.login);
  })();
  const queued = (req.body as { async?: boolean } | undefined)?.async === true;
  return queued ? { status: 202, body: {} } : { status: 204 };
}

function listOutsideCollaborators(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  const rows = ctx.db.prepare('SELECT * FROM org_outside_collaborators WHERE org_id = ? ORDER BY login').all(org.id) as Array<{
    login: string;
    user_id: number;
  }>;
  return { status: 200, body: page(rows, req.query).map(userOfMembership) };
}

function removeOutsideCollaborator(req: GithubRequest, ctx: GithubContext) {
  const org = orgOf(req, ctx);
  requireOwner(ctx.db, org, req.user);
  const user = ctx.user(req.params.username ?? '');
  if (isActiveMember(ctx.db, org, user)) {
    throw new GithubError(422, 'You cannot specify an organization member to remove as an outside collaborator.');
  }
  ctx.db.prepare('DELETE FROM org_outside_collaborators WHERE org_id = ? AND user_id = ?').run(org.id, user.id);
  return { status: 204 };
}

export const orgMembershipHandlers: Record<string, Handler> = {
  'orgs/list-members': listMembers,
  'orgs/check-membership-for-user': checkMembership,
  'orgs/remove-member': removeMember,
  'orgs/get-membership-for-user': getMembership,
  'orgs/set-membership-for-user': setMembership,
  'orgs/remove-membership-for-user': removeMembership,
  'orgs/list-memberships-for-authenticated-user': listMyMemberships,
  'orgs/get-membership-for-authenticated-user': getMyMembership,
  'orgs/update-membership-for-authenticated-user': updateMyMembership,
  'orgs/list-public-members': listPublicMembers,
  'orgs/check-public-membership-for-user': checkPublicMembership,
  'orgs/set-public-membership-for-authenticated-user': (req, ctx) => setPublicity(req, ctx, true),
  'orgs/remove-public-membership-for-authenticated-user': (req, ctx) => setPublicity(req, ctx, false),
  'orgs/convert-member-to-outside-collaborator': convertToOutsideCollaborator,
  'orgs/list-outside-collaborators': listOutsideCollaborators,
  'orgs/remove-outside-collaborator': removeOutsideCollaborator,
};
