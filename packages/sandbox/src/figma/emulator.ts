/**
 * The Figma REST emulator: the shared HTTP layer (routing, validation against Figma's published
 * description, recording) over the generated operation table, Figma's auth and error shapes, SQLite
 * state, and an image host for export URLs.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { commentHandlers } from './comments.js';
import { FigmaError, type FigmaContext, type FigmaUser, type Handler } from './context.js';
import { renderFigmaError } from './errors.js';
import { fileHandlers } from './files.js';
import { startImageHost } from './image-host.js';
import { imageHandlers } from './images.js';
import { libraryHandlers } from './library.js';
import { seed, type FigmaSeed } from './seed.js';
import { createTables } from './store.js';
import { operationTable } from './table.js';
import { bearerToken, userFor, userHandlers } from './users.js';

export interface FigmaEmulatorOptions {
  /** The clock handlers read (export URLs expire by it); tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

export interface FigmaEmulator {
  /** Base URL of the API, e.g. http://127.0.0.1:43121; operation paths (/v1/...) go after it. */
  url: string;
  /** Base URL of the host that serves export URLs. */
  imagesUrl: string;
  /** Every API request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  db: Database.Database;
  /** The user a token acts as (created on first sight). */
  userFor(token: string): FigmaUser;
  /** Adds a team, a project, files and what they publish (the API has no way to create them). */
  seed(data: FigmaSeed): void;
  /** Empties all state and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export const figmaHandlers: Record<string, Handler> = combineHandlers('Figma', fileHandlers, commentHandlers, libraryHandlers, imageHandlers, userHandlers);

export async function startFigmaEmulator(options: FigmaEmulatorOptions = {}): Promise<FigmaEmulator> {
  checkHandlers('Figma', operationTable, figmaHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  const images = await startImageHost(() => ctx);
  const ctx: FigmaContext = { db, clock, imagesUrl: images.url };

  const server = await startEmulator<FigmaUser>({
    operations: operationTable,
    authenticate: (headers) => userFor(db, bearerToken(headers.authorization)),
    handle: (call, user) => {
      try {
        return inTransaction(() => figmaHandlers[call.label]!(call, user, ctx));
      } catch (error) {
        if (error instanceof FigmaError) error.label = call.label;
        throw error;
      }
    },
    renderError: (error) => renderFigmaError(error),
  });

  return {
    url: server.url,
    imagesUrl: images.url,
    requests: server.requests,
    clock,
    db,
    userFor: (token) => userFor(db, token),
    seed: (data) => inTransaction(() => seed(ctx, data)),
    reset() {
      resetTables(db, createTables);
      server.requests.length = 0;
    },
    async close() {
      await Promise.all([server.close(), images.close()]);
      db.close();
    },
  };
}
