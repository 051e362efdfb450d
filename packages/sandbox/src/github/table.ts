/** The generated GitHub (Enterprise Server 3.8) operation table (see scripts/generate/github-emulator.ts). */
import type { OperationTable } from '../emulator/operations.js';
import generated from './operations.json' with { type: 'json' };

export interface GithubOperations {
  table: OperationTable;
  /** The description's example body per operation and success status, where it gives one. */
  examples: Record<string, Record<number, unknown>>;
  /** The first tag of each operation, e.g. "issues". */
  tags: Record<string, string>;
}

export const githubOperations = generated as unknown as GithubOperations;
