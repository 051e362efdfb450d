/**
 * Collaborators and repository invitations. Adding someone who is not yet a collaborator invites
 * them (201 with the invitation); they join when they accept it with their own token, and to anyone
 * else the invitation does not exist (404). Adding an existing collaborator changes their role at
 * once (204), and so does adding an active member of the owning organization. Only organization
 * repositories take a role: on a personal repository every collaborator can push.
 */
import type Database from 'better-sqlite3';
import { findOrganization, iso, nodeId, page, simpleUser, textParam, API, WEB } from './common.js';
import { hasRole, requireRole, roleFromPermission, roleOf, ROLES, type Role } from './access.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type GithubUser, type Handler } from './context.js';
import { membershipOf } from './org-membership.js';
import { repositoryView, requestedRepository, type RepositoryRow } from './repositories.js';
import { overlay } from './shapes.js';

export function createCollaboratorTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS collaborators (
      repo_id INTEGER NOT NULL,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      permission TEXT NOT NULL,
      PRIMARY KEY (repo_id, user_id)
    );
    CREATE TABLE IF NOT EXISTS invitations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      invitee_id INTEGER NOT NULL,
      invitee TEXT NOT NULL,
      inviter_id INTEGER NOT NULL,
      inviter TEXT NOT NULL,
      permission TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
  `);
}

interface InvitationRow {
  id: number;
  repo_id: number;
  invitee_id: number;
  invitee: string;
  inviter_id: number;
  inviter: string;
  permission: Role;
  created_at: number;
}

const isOrgMember = (db: Database.Database, row: RepositoryRow, user: GithubUser) => {
  const org = findOrganization(db, row.owner);
  return Boolean(org && membershipOf(db, org, user)?.state === 'active');
};

/** The `repository-invitation` shape. */
function invitationView(ctx: GithubContext, invitation: InvitationRow, viewer: GithubUser) {
  const repo = ctx.db.prepare('SELECT * FROM repos WHERE id = ?').get(invitation.repo_id) as RepositoryRow;
  const [sample] = ctx.sample('repos/list-invitations') as Array<Record<string, unknown>>;
  // `expired` is optional in the schema and absent from the sample, but GitHub always says it.
  return overlay(
    { ...sample!, expired: false },
    {
      id: invitation.id,
      node_id: nodeId('RepositoryInvitation', invitation.id),
      repository: repositoryView(ctx, repo, viewer, 'repos/list-for-org'),
      invitee: simpleUser({ id: invitation.invitee_id, login: invitation.invitee }),
      inviter: simpleUser({ id: invitation.inviter_id, login: invitation.inviter }),
      permissions: invitation.permission,
      created_at: iso(invitation.created_at),
      expired: false,
      url: `${API}/user/repository_invitations/${invitation.id}`,
      html_url: `${WEB}/${repo.full_name}/invitations`,
    },
  );
}

/** The `collaborator` shape: the account, its permissions on the repository, and its role's name. */
function collaboratorView(ctx: GithubContext, row: RepositoryRow, user: GithubUser) {
  const role = roleOf(ctx.db, row, user) ?? 'read';
  const at = (needed: Role) => ROLES.indexOf(role) >= ROLES.indexOf(needed);
  return {
    ...simpleUser(user),
    permissions: { pull: at('read'), triage: at('triage'), push: at('write'), maintain: at('maintain'), admin: at('admin') },
    role_name: role,
  };
}

/** Everyone with a role of their own on the repository: owner, organization owners and members, collaborators. */
function collaboratorsOf(ctx: GithubContext, row: RepositoryRow, affiliation: string): GithubUser[] {
  const direct = ctx.db.prepare('SELECT user_id AS id, login FROM collaborators WHERE repo_id = ? ORDER BY login').all(row.id) as GithubUser[];
  if (affiliation === 'outside') return direct.filter((user) => !isOrgMember(ctx.db, row, user));
  const org = findOrganization(ctx.db, row.owner);
  const owner = org ? [] : [ctx.user(row.owner)];
  const members = org
    ? (ctx.db.prepare(`SELECT user_id AS id, login FROM org_memberships WHERE org_id = ? AND state = 'active' ORDER BY login`).all(org.id) as GithubUser[])
    : [];
  const everyone = affiliation === 'direct' ? [...owner, ...direct] : [...owner, ...members, ...direct];
  return [...new Map(everyone.map((user) => [user.id, user])).values()];
}

function listCollaborators(req: GithubRequest, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  if (!hasRole(ctx.db, row, req.user, 'write')) throw new GithubError(403, 'Must have push access to view repository collaborators.');
  const permission = textParam(req.query.permission);
  const wanted = permission && roleFromPermission(permission);
  const users = collaboratorsOf(ctx, row, textParam(req.query.affiliation) ?? 'all').filter((user) => !wanted || roleOf(ctx.db, row, user) === wanted);
  return { status: 200, body: page(users, req.query).map((user) => collaboratorView(ctx, row, user)) };
}

function checkCollaborator(req: GithubRequest, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  const user = ctx.user(req.params.username ?? '');
  if (!collaboratorsOf(ctx, row, 'all').some((collaborator) => collaborator.id === user.id)) throw notFound();
  return { status: 204 };
}

function addCollaborator(req: GithubRequest<{ permission?: string } | undefined>, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  requireRole(ctx.db, row, req.user, 'admin');
  const user = ctx.user(req.params.username ?? '');
  if (user.login.toLowerCase() === row.owner.toLowerCase()) {
    throw new GithubError(422, 'Validation Failed', [
      { resource: 'Repository', code: 'custom', field: 'collaborator', message: 'Repository owner cannot be a collaborator' },
    ]);
  }
  const organizationOwned = findOrganization(ctx.db, row.owner) !== undefined;
  const role = organizationOwned ? roleFromPermission(req.body?.permission ?? 'push') : 'write';
  const existing = ctx.db.prepare('SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?').get(row.id, user.id);
  if (existing || isOrgMember(ctx.db, row, user)) {
    ctx.db.prepare('INSERT OR REPLACE INTO collaborators (repo_id, user_id, login, permission) VALUES (?, ?, ?, ?)').run(row.id, user.id, user.login, role);
    return { status: 204 };
  }
  const pending = ctx.db.prepare('SELECT id FROM invitations WHERE repo_id = ? AND invitee_id = ?').get(row.id, user.id) as { id: number } | undefined;
  if (pending) {
    ctx.db.prepare('UPDATE invitations SET permission = ? WHERE id = ?').run(role, pending.id);
  } else {
    ctx.db
      .prepare('INSERT INTO invitations (repo_id, invitee_id, invitee, inviter_id, inviter, permission, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(row.id, user.id, user.login, req.user.id, req.user.login, role, ctx.clock.now());
  }
  const invitation = ctx.db.prepare('SELECT * FROM invitations WHERE repo_id = ? AND invitee_id = ?').get(row.id, user.id) as InvitationRow;
  return { status: 201, body: invitationView(ctx, invitation, req.user) };
}

/** Admins remove anyone; a collaborator may remove themselves. */
function removeCollaborator(req: GithubRequest, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  const user = ctx.user(req.params.username ?? '');
  if (user.id !== req.user.id) requireRole(ctx.db, row, req.user, 'admin');
  ctx.db.prepare('DELETE FROM collaborators WHERE repo_id = ? AND user_id = ?').run(row.id, user.id);
  ctx.db.prepare('DELETE FROM invitations WHERE repo_id = ? AND invitee_id = ?').run(row.id, user.id);
  return { status: 204 };
}

/** GitHub's older four-level `permission` beside the role's own name. */
function permissionLevel(req: GithubRequest, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  const user = ctx.user(req.params.username ?? '');
  const role = roleOf(ctx.db, row, user);
  const permission = role === 'admin' ? 'admin' : role === 'maintain' || role === 'write' ? 'write' : role ? 'read' : 'none';
  return { status: 200, body: { permission, role_name: role ?? 'none', user: collaboratorView(ctx, row, user) } };
}

const invitationsOf = (db: Database.Database, row: RepositoryRow) =>
  db.prepare('SELECT * FROM invitations WHERE repo_id = ? ORDER BY id').all(row.id) as InvitationRow[];

function findInvitation(req: GithubRequest, ctx: GithubContext): { row: RepositoryRow; invitation: InvitationRow } {
  const row = requestedRepository(req, ctx);
  requireRole(ctx.db, row, req.user, 'admin');
  const invitation = ctx.db.prepare('SELECT * FROM invitations WHERE id = ? AND repo_id = ?').get(Number(req.params.invitation_id), row.id) as
    | InvitationRow
    | undefined;
  if (!invitation) throw notFound();
  return { row, invitation };
}

/** An invitation of the caller's: to anyone else it does not exist. */
function ownInvitation(req: GithubRequest, ctx: GithubContext): InvitationRow {
  const invitation = ctx.db.prepare('SELECT * FROM invitations WHERE id = ? AND invitee_id = ?').get(Number(req.params.invitation_id), req.user.id) as
    | InvitationRow
    | undefined;
  if (!invitation) throw notFound();
  return invitation;
}

export const collaboratorHandlers: Record<string, Handler> = {
  'repos/list-collaborators': listCollaborators,
  'repos/check-collaborator': checkCollaborator,
  'repos/add-collaborator': addCollaborator,
  'repos/remove-collaborator': removeCollaborator,
  'repos/get-collaborator-permission-level': permissionLevel,

  'repos/list-invitations': (req, ctx) => {
    const row = requestedRepository(req, ctx);
    requireRole(ctx.db, row, req.user, 'admin');
    return { status: 200, body: page(invitationsOf(ctx.db, row), req.query).map((invitation) => invitationView(ctx, invitation, req.user)) };
  },
  'repos/update-invitation': (req: GithubRequest<{ permissions?: string } | undefined>, ctx) => {
    const { invitation } = findInvitation(req, ctx);
    if (req.body?.permissions)
      ctx.db.prepare('UPDATE invitations SET permission = ? WHERE id = ?').run(roleFromPermission(req.body.permissions), invitation.id);
    return { status: 200, body: invitationView(ctx, ctx.db.prepare('SELECT * FROM invitations WHERE id = ?').get(invitation.id) as InvitationRow, req.user) };
  },
  'repos/delete-invitation': (req, ctx) => {
    const { invitation } = findInvitation(req, ctx);
    ctx.db.prepare('DELETE FROM invitations WHERE id = ?').run(invitation.id);
    return { status: 204 };
  },

  'repos/list-invitations-for-authenticated-user': (req, ctx) => {
    const invitations = ctx.db.prepare('SELECT * FROM invitations WHERE invitee_id = ? ORDER BY id').all(req.user.id) as InvitationRow[];
    return { status: 200, body: page(invitations, req.query).map((invitation) => invitationView(ctx, invitation, req.user)) };
  },
  'repos/accept-invitation-for-authenticated-user': (req, ctx) => {
    const invitation = ownInvitation(req, ctx);
    ctx.db
      .prepare('INSERT OR REPLACE INTO collaborators (repo_id, user_id, login, permission) VALUES (?, ?, ?, ?)')
      .run(invitation.repo_id, req.user.id, req.user.login, invitation.permission);
    ctx.db.prepare('DELETE FROM invitations WHERE id = ?').run(invitation.id);
    return { status: 204 };
  },
  'repos/decline-invitation-for-authenticated-user': (req, ctx) => {
    ctx.db.prepare('DELETE FROM invitations WHERE id = ?').run(ownInvitation(req, ctx).id);
    return { status: 204 };
  },
};
