import type Database from 'better-sqlite3';
import { iso, nodeId, repoUrl, sha1, WEB } from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler, type Repository } from './context.js';

/**
 * Git data: blobs, trees, commits, annotated tags and references, stored as real git objects so
 * every SHA is the one git itself would compute ("<type> <size>\0<body>").
 *
 * A repository's object store is created lazily on first access through this module (or through
 * `resolveCommit` from another module): it starts with one commit, "Initial commit", holding a
 * README.md, on the repository's default branch, so branches, statuses, checks and deployments
 * have something to point at. Deleting every ref later does not bring it back.
 *
 * Nothing is published implicitly: a new tree or commit is only reachable once a ref points at
 * it, and an annotated tag object gets no refs/tags ref until create-ref makes one.
 */

export function createGitDataTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS git_repositories (
      repo_id INTEGER PRIMARY KEY
    );
    CREATE TABLE IF NOT EXISTS git_objects (
      repo_id INTEGER NOT NULL,
      sha TEXT NOT NULL,
      type TEXT NOT NULL,
      body BLOB NOT NULL,
      PRIMARY KEY (repo_id, sha)
    );
    CREATE TABLE IF NOT EXISTS git_refs (
      repo_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      sha TEXT NOT NULL,
      PRIMARY KEY (repo_id, name)
    );
  `);
}

type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

interface GitObject {
  sha: string;
  type: ObjectType;
  body: Buffer;
}

export interface Signature {
  name: string;
  email: string;
  /** ISO 8601 as given; its offset is kept in the object as git does. */
  date: string;
}

interface TreeEntry {
  name: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
}

export interface Commit {
  sha: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

interface Tag {
  sha: string;
  object: string;
  type: ObjectType;
  tag: string;
  tagger: Signature;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// The object store

function writeObject(db: Database.Database, repo: Repository, type: ObjectType, body: Buffer): string {
  const sha = sha1(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]));
  db.prepare('INSERT OR IGNORE INTO git_objects (repo_id, sha, type, body) VALUES (?, ?, ?, ?)').run(repo.id, sha, type, body);
  return sha;
}

function readObject(db: Database.Database, repo: Repository, sha: string): GitObject | undefined {
  if (!/^[0-9a-f]{40}$/i.test(sha)) return undefined;
  return db.prepare('SELECT sha, type, body FROM git_objects WHERE repo_id = ? AND sha = ?').get(repo.id, sha.toLowerCase()) as GitObject | undefined;
}

/** Git writes a tree's directory mode without the leading zero the API shows. */
const storedMode = (mode: string) => mode.replace(/^0+/, '');
const apiMode = (mode: string) => (mode === '40000' ? '040000' : mode);

/** Git orders tree entries by name, comparing a subtree's name as if it ended in "/". */
const sortKey = (entry: TreeEntry) => (entry.type === 'tree' ? `${entry.name}/` : entry.name);

function writeTree(db: Database.Database, repo: Repository, entries: TreeEntry[]): string {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(sortKey(a)), Buffer.from(sortKey(b))));
  const body = Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${storedMode(e.mode)} ${e.name}\0`), Buffer.from(e.sha, 'hex')]));
  return writeObject(db, repo, 'tree', body);
}

function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const nul = body.indexOf(0, at);
    const [mode = '', ...name] = body.subarray(at, nul).toString().split(' ');
    const sha = body.subarray(nul + 1, nul + 21).toString('hex');
    const type = mode === '40000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.push({ name: name.join(' '), mode: apiMode(mode), type, sha });
    at = nul + 21;
  }
  return entries;
}

/** "<name> <<email>> <epoch seconds> <±hhmm>", keeping the offset the date was given in. */
function formatSignature(who: Signature): string {
  const offset = /([+-])(\d\d):?(\d\d)$/.exec(who.date);
  const zone = offset ? `${offset[1]}${offset[2]}${offset[3]}` : '+0000';
  return `${who.name} <${who.email}> ${Math.floor(Date.parse(who.date) / 1000)} ${zone}`;
}

function parseSignature(line: string): Signature {
  const match = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: '', date: iso(0) };
  return { name: match[1]!, email: match[2]!, date: iso(Number(match[3]) * 1000) };
}

/** Splits "header lines\n\nmessage" into headers (repeatable) and the message. */
function parseHeaders(body: Buffer): { headers: Array<[string, string]>; message: string } {
  const text = body.toString();
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const headers = head.split('\n').map((line): [string, string] => {
    const space = line.indexOf(' ');
    return [line.slice(0, space), line.slice(space + 1)];
  });
  return { headers, message: split === -1 ? '' : text.slice(split + 2) };
}

function writeCommit(db: Database.Database, repo: Repository, commit: Omit<Commit, 'sha'>): string {
  const lines = [`tree ${commit.tree}`, ...commit.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${formatSignature(commit.author)}`, `committer ${formatSignature(commit.committer)}`);
  return writeObject(db, repo, 'commit', Buffer.from(`${lines.join('\n')}\n\n${commit.message}`));
}

function parseCommit(object: GitObject): Commit {
  const { headers, message } = parseHeaders(object.body);
  const value = (name: string) => headers.find(([key]) => key === name)?.[1] ?? '';
  return {
    sha: object.sha,
    tree: value('tree'),
    parents: headers.filter(([key]) => key === 'parent').map(([, sha]) => sha),
    author: parseSignature(value('author')),
    committer: parseSignature(value('committer')),
    message,
  };
}

function parseTag(object: GitObject): Tag {
  const { headers, message } = parseHeaders(object.body);
  const value = (name: string) => headers.find(([key]) => key === name)?.[1] ?? '';
  return {
    sha: object.sha,
    object: value('object'),
    type: value('type') as ObjectType,
    tag: value('tag'),
    tagger: parseSignature(value('tagger')),
    message,
  };
}

// ---------------------------------------------------------------------------------------------
// The lazily created history

/** The repository's object store, created with its initial commit on first use. */
export function gitRepository(ctx: GithubContext, repo: Repository): Repository {
  createGitDataTables(ctx.db);
  const known = ctx.db.prepare('SELECT 1 FROM git_repositories WHERE repo_id = ?').get(repo.id);
  if (known) return repo;
  ctx.db.transaction(() => {
    ctx.db.prepare('INSERT INTO git_repositories (repo_id) VALUES (?)').run(repo.id);
    const readme = writeObject(ctx.db, repo, 'blob', Buffer.from(`# ${repo.name}\n`));
    const tree = writeTree(ctx.db, repo, [{ name: 'README.md', mode: '100644', type: 'blob', sha: readme }]);
    const owner = ctx.user(repo.owner);
    const who = { name: owner.login, email: noreplyEmail(owner), date: iso(ctx.clock.now()) };
    const commit = writeCommit(ctx.db, repo, { tree, parents: [], author: who, committer: who, message: 'Initial commit' });
    setRef(ctx.db, repo, `refs/heads/${repo.defaultBranch}`, commit);
  })();
  return repo;
}

const noreplyEmail = (user: { login: string; id: number }) => `${user.id}+${user.login}@users.noreply.github.com`;

function repositoryOf(req: GithubRequest, ctx: GithubContext): Repository {
  return gitRepository(ctx, ctx.repository(req.params.owner ?? '', req.params.repo ?? ''));
}

// ---------------------------------------------------------------------------------------------
// Refs

interface Ref {
  name: string;
  sha: string;
}

function setRef(db: Database.Database, repo: Repository, name: string, sha: string): void {
  db.prepare('INSERT OR REPLACE INTO git_refs (repo_id, name, sha) VALUES (?, ?, ?)').run(repo.id, name, sha);
}

function findRef(db: Database.Database, repo: Repository, name: string): Ref | undefined {
  return db.prepare('SELECT name, sha FROM git_refs WHERE repo_id = ? AND name = ?').get(repo.id, name) as Ref | undefined;
}

/** Refs whose name starts with `prefix`, in git's (byte) order. */
function refsStartingWith(db: Database.Database, repo: Repository, prefix: string): Ref[] {
  const refs = db.prepare('SELECT name, sha FROM git_refs WHERE repo_id = ?').all(repo.id) as Ref[];
  return refs.filter((ref) => ref.name.startsWith(prefix)).sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
}

/** A tag ref may point at an annotated tag; what it finally names is what statuses and checks attach to. */
function peel(db: Database.Database, repo: Repository, sha: string): GitObject | undefined {
  let object = readObject(db, repo, sha);
  for (let hops = 0; object?.type === 'tag' && hops < 10; hops += 1) object = readObject(db, repo, parseTag(object).object);
  return object;
}

/**
 * The commit a ref names: a commit SHA, a branch or tag name, or a full ref (refs/heads/...).
 * This is how statuses, checks and deployments resolve `ref` and `head_sha`.
 */
export function resolveCommit(ctx: GithubContext, repo: Repository, ref: string): string | undefined {
  gitRepository(ctx, repo);
  const candidates = ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/${ref}`];
  for (const name of candidates) {
    const found = findRef(ctx.db, repo, name);
    if (found) {
      const object = peel(ctx.db, repo, found.sha);
      return object?.type === 'commit' ? object.sha : undefined;
    }
  }
  const object = peel(ctx.db, repo, ref);
  return object?.type === 'commit' ? object.sha : undefined;
}

/** Branches whose tip is `sha`, for check suites' head_branch. */
export function branchesAt(ctx: GithubContext, repo: Repository, sha: string): string[] {
  gitRepository(ctx, repo);
  return refsStartingWith(ctx.db, repo, 'refs/heads/')
    .filter((ref) => ref.sha === sha)
    .map((ref) => ref.name.slice('refs/heads/'.length));
}

/** The commit, for views that embed one (check suites' head_commit). */
export function readCommit(ctx: GithubContext, repo: Repository, sha: string): Commit | undefined {
  const object = readObject(ctx.db, repo, sha);
  return object?.type === 'commit' ? parseCommit(object) : undefined;
}

function isAncestor(db: Database.Database, repo: Repository, ancestor: string, of: string): boolean {
  const seen = new Set<string>();
  const queue = [of];
  while (queue.length > 0) {
    const sha = queue.pop()!;
    if (sha === ancestor) return true;
    if (seen.has(sha)) continue;
    seen.add(sha);
    const object = readObject(db, repo, sha);
    if (object?.type === 'commit') queue.push(...parseCommit(object).parents);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Views

const objectUrl = (repo: Repository, kind: string, sha: string) => `${repoUrl(repo)}/git/${kind}/${sha}`;

function blobView(repo: Repository, object: GitObject) {
  return {
    content: `${(object.body.toString('base64').match(/.{1,60}/g) ?? []).join('\n')}\n`,
    encoding: 'base64',
    url: objectUrl(repo, 'blobs', object.sha),
    sha: object.sha,
    size: object.body.length,
    node_id: nodeId('Blob', `${repo.id}:${object.sha}`),
  };
}

function treeView(db: Database.Database, repo: Repository, sha: string, recursive: boolean) {
  const tree: Array<Record<string, unknown>> = [];
  const walk = (treeSha: string, prefix: string) => {
    for (const entry of parseTree(readObject(db, repo, treeSha)!.body)) {
      const item: Record<string, unknown> = { path: prefix + entry.name, mode: entry.mode, type: entry.type, sha: entry.sha };
      if (entry.type === 'blob') {
        item.size = readObject(db, repo, entry.sha)?.body.length ?? 0;
        item.url = objectUrl(repo, 'blobs', entry.sha);
      } else if (entry.type === 'tree') {
        item.url = objectUrl(repo, 'trees', entry.sha);
      }
      tree.push(item);
      if (recursive && entry.type === 'tree') walk(entry.sha, `${prefix}${entry.name}/`);
    }
  };
  walk(sha, '');
  return { sha, url: objectUrl(repo, 'trees', sha), tree, truncated: false };
}

const signatureView = (who: Signature) => ({ name: who.name, email: who.email, date: iso(Date.parse(who.date)) });

const unverified = { verified: false, reason: 'unsigned', signature: null, payload: null };

function commitView(repo: Repository, commit: Commit) {
  return {
    sha: commit.sha,
    node_id: nodeId('Commit', `${repo.id}:${commit.sha}`),
    url: objectUrl(repo, 'commits', commit.sha),
    html_url: `${WEB}/${repo.fullName}/commit/${commit.sha}`,
    author: signatureView(commit.author),
    committer: signatureView(commit.committer),
    message: commit.message,
    tree: { sha: commit.tree, url: objectUrl(repo, 'trees', commit.tree) },
    parents: commit.parents.map((sha) => ({ sha, url: objectUrl(repo, 'commits', sha), html_url: `${WEB}/${repo.fullName}/commit/${sha}` })),
    verification: unverified,
  };
}

const URL_KIND: Record<ObjectType, string> = { blob: 'blobs', tree: 'trees', commit: 'commits', tag: 'tags' };

function refView(db: Database.Database, repo: Repository, ref: Ref) {
  const type = readObject(db, repo, ref.sha)?.type ?? 'commit';
  return {
    ref: ref.name,
    node_id: nodeId('Ref', `${repo.id}:${ref.name}`),
    url: `${repoUrl(repo)}/git/${ref.name}`,
    object: { type, sha: ref.sha, url: objectUrl(repo, URL_KIND[type], ref.sha) },
  };
}

function tagView(repo: Repository, tag: Tag) {
  return {
    node_id: nodeId('Tag', `${repo.id}:${tag.sha}`),
    tag: tag.tag,
    sha: tag.sha,
    url: objectUrl(repo, 'tags', tag.sha),
    message: tag.message,
    tagger: signatureView(tag.tagger),
    object: { sha: tag.object, type: tag.type, url: objectUrl(repo, URL_KIND[tag.type], tag.object) },
    verification: unverified,
  };
}

// ---------------------------------------------------------------------------------------------
// Handlers

const invalid = (message: string, field?: string) => new GithubError(422, message, field ? [{ resource: 'Git', field, code: 'invalid', message }] : []);

/** An existing object of one of `types`, or 422 as GitHub answers for dangling SHAs in a request. */
function existing(db: Database.Database, repo: Repository, sha: unknown, types: ObjectType[], field: string): GitObject {
  const object = typeof sha === 'string' ? readObject(db, repo, sha) : undefined;
  if (!object || !types.includes(object.type)) throw invalid(`${field} ${String(sha)} is not a valid ${types.join(' or ')}`, field);
  return object;
}

function createBlob(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const { content, encoding = 'utf-8' } = req.body as { content: string; encoding?: string };
  let bytes: Buffer;
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(content)) throw invalid('content is not valid Base64', 'content');
    bytes = Buffer.from(content, 'base64');
  } else if (encoding === 'utf-8' || encoding === 'utf8') {
    bytes = Buffer.from(content, 'utf8');
  } else {
    throw invalid(`encoding must be "utf-8" or "base64", got ${JSON.stringify(encoding)}`, 'encoding');
  }
  const sha = writeObject(ctx.db, repo, 'blob', bytes);
  const url = objectUrl(repo, 'blobs', sha);
  return { status: 201, body: { url, sha }, headers: { Location: url } };
}

function getBlob(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const object = readObject(ctx.db, repo, req.params.file_sha ?? '');
  if (object?.type !== 'blob') throw notFound();
  return { status: 200, body: blobView(repo, object) };
}

interface TreeInput {
  path?: string;
  mode?: string;
  type?: 'blob' | 'tree' | 'commit';
  sha?: string | null;
  content?: string;
}

/** A tree being edited: files by name, subdirectories as nested edits or untouched SHAs. */
interface Draft {
  entries: Map<string, TreeEntry | Draft>;
}

const isDraft = (value: TreeEntry | Draft | undefined): value is Draft => value !== undefined && 'entries' in value;

function draftOf(db: Database.Database, repo: Repository, treeSha: string | undefined): Draft {
  const entries = new Map<string, TreeEntry | Draft>();
  if (treeSha) for (const entry of parseTree(readObject(db, repo, treeSha)!.body)) entries.set(entry.name, entry);
  return { entries };
}

/** The draft for directory `parts`, opening untouched subtrees on the way (and creating missing ones). */
function directory(db: Database.Database, repo: Repository, root: Draft, parts: string[], path: string): Draft {
  let draft = root;
  for (const part of parts) {
    const current = draft.entries.get(part);
    if (isDraft(current)) {
      draft = current;
      continue;
    }
    if (current && current.type !== 'tree') throw invalid(`tree.path ${path} crosses the file ${part}`, 'tree.path');
    const next = draftOf(db, repo, current?.sha);
    draft.entries.set(part, next);
    draft = next;
  }
  return draft;
}

/** Writes the draft bottom-up; empty directories vanish, as in git. Undefined for an empty tree below the root. */
function writeDraft(db: Database.Database, repo: Repository, draft: Draft, root: boolean): string | undefined {
  const entries: TreeEntry[] = [];
  for (const [name, value] of draft.entries) {
    if (!isDraft(value)) {
      entries.push(value);
      continue;
    }
    const sha = writeDraft(db, repo, value, false);
    if (sha) entries.push({ name, mode: '040000', type: 'tree', sha });
  }
  if (entries.length === 0 && !root) return undefined;
  return writeTree(db, repo, entries);
}

const MODE_TYPES: Record<string, TreeEntry['type']> = { '100644': 'blob', '100755': 'blob', '120000': 'blob', '040000': 'tree', '160000': 'commit' };

function createTree(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const { tree, base_tree } = req.body as { tree: TreeInput[]; base_tree?: string };
  const base = base_tree === undefined ? undefined : existing(ctx.db, repo, base_tree, ['tree'], 'base_tree').sha;
  const root = draftOf(ctx.db, repo, base);
  tree.forEach((input, index) => {
    const field = `tree[${index}]`;
    const path = (input.path ?? '').replace(/^\/+|\/+$/g, '');
    if (!path) throw invalid(`${field}.path is required`, 'tree.path');
    if (input.content !== undefined && input.sha !== undefined) throw invalid(`${field} may not have both sha and content`, 'tree.sha');
    const parts = path.split('/');
    const name = parts.pop()!;
    const parent = directory(ctx.db, repo, root, parts, path);
    if (input.sha === null) {
      parent.entries.delete(name);
      return;
    }
    const mode = input.mode ?? (input.type === 'tree' ? '040000' : '100644');
    const type = input.type ?? MODE_TYPES[mode] ?? 'blob';
    if (MODE_TYPES[mode] !== type) throw invalid(`${field}.mode ${mode} does not fit type ${type}`, 'tree.mode');
    let sha: string;
    if (input.content !== undefined) {
      if (type !== 'blob') throw invalid(`${field}.content is only for blobs`, 'tree.content');
      sha = writeObject(ctx.db, repo, 'blob', Buffer.from(input.content, 'utf8'));
    } else if (type === 'commit') {
      // A submodule entry names a commit of another repository, which this one need not hold.
      if (!/^[0-9a-f]{40}$/i.test(input.sha ?? '')) throw invalid(`${field}.sha must be a 40-character SHA`, 'tree.sha');
      sha = input.sha!.toLowerCase();
    } else {
      sha = existing(ctx.db, repo, input.sha, [type], `${field}.sha`).sha;
    }
    parent.entries.set(name, { name, mode, type, sha });
  });
  const sha = writeDraft(ctx.db, repo, root, true)!;
  const body = treeView(ctx.db, repo, sha, false);
  return { status: 201, body, headers: { Location: body.url } };
}

/** A tree SHA, or a commit SHA or ref name standing for the commit's tree. */
function getTree(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const given = req.params.tree_sha ?? '';
  const object = readObject(ctx.db, repo, given);
  const commit = object?.type === 'tree' ? undefined : resolveCommit(ctx, repo, given);
  const sha = object?.type === 'tree' ? object.sha : commit && readCommit(ctx, repo, commit)?.tree;
  if (!sha) throw notFound();
  return { status: 200, body: treeView(ctx.db, repo, sha, req.query.recursive !== undefined) };
}

function signature(given: Partial<Signature> | undefined, fallback: Signature): Signature {
  if (!given) return fallback;
  const date = given.date ?? fallback.date;
  if (Number.isNaN(Date.parse(date))) throw invalid(`date ${date} is not an ISO 8601 timestamp`, 'date');
  return { name: given.name ?? fallback.name, email: given.email ?? fallback.email, date };
}

function createCommit(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const body = req.body as { message: string; tree: string; parents?: string[]; author?: Signature; committer?: Signature };
  const tree = existing(ctx.db, repo, body.tree, ['tree'], 'tree').sha;
  const parents = (body.parents ?? []).map((sha, i) => existing(ctx.db, repo, sha, ['commit'], `parents[${i}]`).sha);
  const me = { name: req.user.login, email: noreplyEmail(req.user), date: iso(ctx.clock.now()) };
  const author = signature(body.author, me);
  const committer = signature(body.committer, author);
  const sha = writeCommit(ctx.db, repo, { tree, parents, author, committer, message: body.message });
  const view = commitView(repo, readCommit(ctx, repo, sha)!);
  return { status: 201, body: view, headers: { Location: view.url } };
}

function getCommit(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const commit = readCommit(ctx, repo, req.params.commit_sha ?? '');
  if (!commit) throw notFound();
  return { status: 200, body: commitView(repo, commit) };
}

/** The path's ref ("heads/main") as a full ref name; a leading "refs/" is tolerated as GitHub does. */
const fullRef = (ref: string | undefined) => `refs/${(ref ?? '').replace(/^refs\//, '')}`;

function getRef(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const ref = findRef(ctx.db, repo, fullRef(req.params.ref));
  if (!ref) throw notFound();
  return { status: 200, body: refView(ctx.db, repo, ref) };
}

function listMatchingRefs(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const refs = refsStartingWith(ctx.db, repo, fullRef(req.params.ref));
  return { status: 200, body: refs.map((ref) => refView(ctx.db, repo, ref)) };
}

function createRef(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const { ref, sha } = req.body as { ref: string; sha: string };
  if (!ref.startsWith('refs/') || ref.split('/').length < 3 || ref.split('/').some((part) => part === '')) {
    throw invalid(`${ref} is not a valid ref name: it must start with "refs" and have at least two slashes`, 'ref');
  }
  if (findRef(ctx.db, repo, ref)) throw invalid('Reference already exists', 'ref');
  const object = readObject(ctx.db, repo, sha);
  if (!object) throw invalid('Object does not exist', 'sha');
  setRef(ctx.db, repo, ref, object.sha);
  const view = refView(ctx.db, repo, { name: ref, sha: object.sha });
  return { status: 201, body: view, headers: { Location: view.url } };
}

function updateRef(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const name = fullRef(req.params.ref);
  const { sha, force = false } = req.body as { sha: string; force?: boolean };
  const current = findRef(ctx.db, repo, name);
  if (!current) throw invalid('Reference does not exist', 'ref');
  const object = readObject(ctx.db, repo, sha);
  if (!object) throw invalid('Object does not exist', 'sha');
  // Fast-forward is a question about commits; for a ref at anything else it cannot be answered.
  const old = readObject(ctx.db, repo, current.sha);
  if (!force && old?.type === 'commit' && !isAncestor(ctx.db, repo, old.sha, object.sha)) {
    throw invalid('Update is not a fast forward', 'sha');
  }
  setRef(ctx.db, repo, name, object.sha);
  return { status: 200, body: refView(ctx.db, repo, { name, sha: object.sha }) };
}

function deleteRef(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const name = fullRef(req.params.ref);
  if (!findRef(ctx.db, repo, name)) throw invalid('Reference does not exist', 'ref');
  ctx.db.prepare('DELETE FROM git_refs WHERE repo_id = ? AND name = ?').run(repo.id, name);
  return { status: 204 };
}

function createTag(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const body = req.body as { tag: string; message: string; object: string; type: ObjectType; tagger?: Signature };
  const target = existing(ctx.db, repo, body.object, [body.type], 'object');
  const tagger = signature(body.tagger, { name: req.user.login, email: noreplyEmail(req.user), date: iso(ctx.clock.now()) });
  const text = [`object ${target.sha}`, `type ${target.type}`, `tag ${body.tag}`, `tagger ${formatSignature(tagger)}`].join('\n');
  const sha = writeObject(ctx.db, repo, 'tag', Buffer.from(`${text}\n\n${body.message}`));
  const view = tagView(repo, parseTag(readObject(ctx.db, repo, sha)!));
  return { status: 201, body: view, headers: { Location: view.url } };
}

function getTag(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const object = readObject(ctx.db, repo, req.params.tag_sha ?? '');
  if (object?.type !== 'tag') throw notFound();
  return { status: 200, body: tagView(repo, parseTag(object)) };
}

export const gitDataHandlers: Record<string, Handler> = {
  'git/create-blob': createBlob,
  'git/get-blob': getBlob,
  'git/create-tree': createTree,
  'git/get-tree': getTree,
  'git/create-commit': createCommit,
  'git/get-commit': getCommit,
  'git/get-ref': getRef,
  'git/list-matching-refs': listMatchingRefs,
  'git/create-ref': createRef,
  'git/update-ref': updateRef,
  'git/delete-ref': deleteRef,
  'git/create-tag': createTag,
  'git/get-tag': getTag,
};
