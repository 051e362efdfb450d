import { bearerToken, defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { commentHandlers } from './comments.js';
import type { FigmaCaller, FigmaContext, FigmaUser, Handler } from './context.js';
import { figmaRateLimit, renderFigmaError } from './errors.js';
import { fileHandlers } from './files.js';
import { startImageHost, type ImageHost } from './image-host.js';
import { imageHandlers } from './images.js';
import { libraryHandlers } from './library.js';
import { seed, type FigmaSeed } from './seed.js';
import { createTables } from './store.js';
import { operationTable } from './table.js';
import { unauthorized, userFor, userHandlers } from './users.js';

export type FigmaEmulatorOptions = EmulatorOptions;

/** The Figma emulator's own methods, besides the shared ones. */
export interface FigmaTools {
  /** Base URL of the host that serves export URLs. */
  imagesUrl: string;
  /** The user a token acts as (created on first sight). */
  userFor(token: string): FigmaUser;
  /** Adds a team, a project, files and what they publish (the API has no way to create them). */
  seed(data: FigmaSeed): void;
}

export type FigmaEmulator = Emulator & FigmaTools;

export const figmaHandlers: Record<string, Handler> = combineHandlers('Figma', fileHandlers, commentHandlers, libraryHandlers, imageHandlers, userHandlers);

interface FigmaState extends FigmaContext {
  images: ImageHost;
}

export const startFigmaEmulator = defineEmulator<FigmaCaller, FigmaState, FigmaTools>({
  name: 'Figma',
  operations: operationTable,
  handlers: figmaHandlers,
  createTables,
  async context({ db, clock }) {
    const images = await startImageHost(() => state);
    const state: FigmaState = { db, clock, imagesUrl: images.url, images };
    return state;
  },
  credentials: {
    read: bearerToken,
    refuse: unauthorized,
    principal: (token, { db }) => ({ user: userFor(db, token) }),
    tokenPrefix: 'figd_',
  },
  renderError: renderFigmaError,
  rateLimit: figmaRateLimit,
  api: ({ inTransaction }, ctx) => ({
    imagesUrl: ctx.imagesUrl,
    userFor: (token) => userFor(ctx.db, token),
    seed: (data) => inTransaction(() => seed(ctx, data)),
  }),
  close: ({ images }) => images.close(),
});
