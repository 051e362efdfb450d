/**
 * State the Figma API cannot create (teams, projects, files and what they publish): tests and the sandbox
 * demo put it in through the emulator, as a designer would in the editor.
 */
import type Database from 'better-sqlite3';
import { isoTime, type FigmaContext, type FigmaUser } from './context.js';
import { findNode, NODE_ID, walk, type FigmaNode } from './tree.js';
import { userFor } from './users.js';

export interface SeedFile {
  key: string;
  name: string;
  /** The DOCUMENT node, with CANVAS pages as its children. */
  document: FigmaNode;
  editorType?: 'figma' | 'figjam';
  version?: string;
}

export interface SeedLibraryItem {
  kind: 'components' | 'component_sets' | 'styles';
  key: string;
  /** The node of the file that is published. */
  nodeId: string;
  description?: string;
  /** For styles. */
  styleType?: 'FILL' | 'TEXT' | 'EFFECT' | 'GRID';
}

export interface FigmaSeed {
  team: { id: string; name: string };
  project: { id: string; name: string };
  files: Array<SeedFile & { publish?: SeedLibraryItem[] }>;
  /** The token of the designer who published the items (a user like any caller). */
  publisherToken: string;
}

export function seed(ctx: FigmaContext, data: FigmaSeed): void {
  const { db } = ctx;
  const publisher = userFor(db, data.publisherToken);
  db.prepare('INSERT OR IGNORE INTO teams (id, name) VALUES (?, ?)').run(data.team.id, data.team.name);
  db.prepare('INSERT OR IGNORE INTO projects (id, team_id, name) VALUES (?, ?, ?)').run(data.project.id, data.team.id, data.project.name);
  for (const file of data.files) {
    checkIds(file);
    const now = isoTime(ctx.clock.now());
    db.prepare('INSERT INTO files (key, project_id, name, editor_type, version, last_modified, thumbnail_url, document) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      file.key,
      data.project.id,
      file.name,
      file.editorType ?? 'figma',
      file.version ?? '1',
      now,
      `${ctx.imagesUrl}/thumbnails/${file.key}.png`,
      JSON.stringify(file.document),
    );
    for (const item of file.publish ?? []) publish(db, file, item, publisher, now);
  }
}

function publish(db: Database.Database, file: SeedFile, item: SeedLibraryItem, publisher: FigmaUser, now: string): void {
  const node = findNode(file.document, item.nodeId);
  if (!node) throw new Error(`Figma seed: ${file.key} has no node ${item.nodeId} to publish`);
  const sortPosition = item.kind === 'styles' ? String(db.prepare("SELECT COUNT(*) AS n FROM library_items WHERE kind = 'styles'").pluck().get()) : null;
  db.prepare(
    'INSERT INTO library_items (kind, key, file_key, node_id, name, description, style_type, sort_position, created_at, updated_at, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(item.kind, item.key, file.key, item.nodeId, node.name, item.description ?? '', item.styleType ?? null, sortPosition, now, now, publisher.id);
}

function checkIds(file: SeedFile): void {
  const seen = new Set<string>();
  for (const node of walk(file.document)) {
    if (!NODE_ID.test(node.id)) throw new Error(`Figma seed: ${file.key} has a node id ${node.id} that is not of the form 1:2`);
    if (seen.has(node.id)) throw new Error(`Figma seed: ${file.key} has two nodes ${node.id}`);
    seen.add(node.id);
  }
}
