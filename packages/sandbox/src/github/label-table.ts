/**
 * The labels table and the labels a new repository starts with: apart from labels.ts, so that
 * repositories.ts can seed a new repository's labels while labels.ts looks repositories up.
 */
import type Database from 'better-sqlite3';

export function createLabelTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS labels (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      name TEXT NOT NULL COLLATE NOCASE,
      color TEXT NOT NULL,
      description TEXT,
      is_default INTEGER NOT NULL DEFAULT 0,
      UNIQUE (repo_id, name)
    );
  `);
}

export interface LabelRow {
  id: number;
  repo_id: number;
  name: string;
  color: string;
  description: string | null;
  is_default: number;
}

const DEFAULT_LABELS: Array<[string, string, string]> = [
  ['bug', 'd73a4a', "Something isn't working"],
  ['documentation', '0075ca', 'Improvements or additions to documentation'],
  ['duplicate', 'cfd3d7', 'This issue or pull request already exists'],
  ['enhancement', 'a2eeef', 'New feature or request'],
  ['good first issue', '7057ff', 'Good for newcomers'],
  ['help wanted', '008672', 'Extra attention is needed'],
  ['invalid', 'e4e669', "This doesn't seem right"],
  ['question', 'd876e3', 'Further information is requested'],
  ['wontfix', 'ffffff', 'This will not be worked on'],
];

/** Labels for a new repository: the template's, or GitHub's defaults. */
export function seedLabels(db: Database.Database, repoId: number, templateId?: number): void {
  const insert = db.prepare('INSERT INTO labels (repo_id, name, color, description, is_default) VALUES (?, ?, ?, ?, ?)');
  if (templateId !== undefined) {
    for (const label of db.prepare('SELECT * FROM labels WHERE repo_id = ? ORDER BY id').all(templateId) as LabelRow[]) {
      insert.run(repoId, label.name, label.color, label.description, label.is_default);
    }
  } else {
    for (const [name, color, description] of DEFAULT_LABELS) insert.run(repoId, name, color, description, 1);
  }
}
