/**
 * Who may do what with a repository. GitHub's roles in rising order are read, triage, write,
 * maintain and admin. The owner of a personal repository is its admin; in an organization, owners
 * are admins of every repository and members read them (the default base permission); collaborators
 * have the role they were given; anyone reads a public repository.
 */
import type Database from 'better-sqlite3';
import { findOrganization } from './common.js';
import { GithubError, type GithubUser } from './context.js';
import { membershipOf } from './org-membership.js';

export const ROLES = ['read', 'triage', 'write', 'maintain', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The part of a repository row access depends on. */
export interface RepositoryAccess {
  id: number;
  owner: string;
  private: boolean | number;
}

/** The user's role on the repository, or undefined for none. */
export function roleOf(db: Database.Database, repo: RepositoryAccess, user: GithubUser): Role | undefined {
  if (repo.owner.toLowerCase() === user.login.toLowerCase()) return 'admin';
  const roles: Role[] = [];
  const org = findOrganization(db, repo.owner);
  const membership = org && membershipOf(db, org, user);
  if (membership?.state === 'active') roles.push(membership.role === 'admin' ? 'admin' : 'read');
  const collaborator = db.prepare('SELECT permission FROM collaborators WHERE repo_id = ? AND user_id = ?').get(repo.id, user.id) as
    | { permission: Role }
    | undefined;
  if (collaborator) roles.push(collaborator.permission);
  if (!repo.private) roles.push('read');
  return roles.sort((a, b) => ROLES.indexOf(b) - ROLES.indexOf(a))[0];
}

export const hasRole = (db: Database.Database, repo: RepositoryAccess, user: GithubUser, needed: Role): boolean => {
  const role = roleOf(db, repo, user);
  return role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(needed);
};

/** Refuses as GitHub does when the caller lacks the role, e.g. "Must have admin rights to Repository." */
export function requireRole(db: Database.Database, repo: RepositoryAccess, user: GithubUser, needed: Role): void {
  if (hasRole(db, repo, user, needed)) return;
  throw new GithubError(403, needed === 'admin' ? 'Must have admin rights to Repository.' : `Must have ${needed} access to repository.`);
}

/** The `permissions` object GitHub shows the caller on a repository. */
export function permissionsOf(db: Database.Database, repo: RepositoryAccess, user: GithubUser) {
  const at = (role: Role) => hasRole(db, repo, user, role);
  return { admin: at('admin'), maintain: at('maintain'), push: at('write'), triage: at('triage'), pull: at('read') };
}

/** add-collaborator speaks pull/push, invitations read/write; both mean the same roles. */
export function roleFromPermission(permission: string): Role {
  const role = ({ pull: 'read', push: 'write' } as Record<string, Role>)[permission] ?? permission;
  if (!ROLES.includes(role as Role)) throw new GithubError(422, 'Validation Failed', [{ resource: 'Repository', field: 'permission', code: 'invalid' }]);
  return role as Role;
}

/** The `author_association` GitHub shows beside a user's issue or comment. */
export function associationOf(db: Database.Database, repo: RepositoryAccess, user: GithubUser): 'OWNER' | 'MEMBER' | 'COLLABORATOR' | 'NONE' {
  if (repo.owner.toLowerCase() === user.login.toLowerCase()) return 'OWNER';
  const org = findOrganization(db, repo.owner);
  if (org && membershipOf(db, org, user)?.state === 'active') return 'MEMBER';
  if (db.prepare('SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?').get(repo.id, user.id)) return 'COLLABORATOR';
  return 'NONE';
}
