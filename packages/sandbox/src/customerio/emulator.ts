/**
 * The Customer.io Track API emulator: the shared HTTP layer (routing, validation, recording) over the
 * generated operation table, served on two hosts, the US one (track.customer.io) and the EU one
 * (track-eu.customer.io), over one SQLite state. Credentials are HTTP Basic (site id and API key);
 * each site id is a workspace in one region.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { createActivityTables } from './activities.js';
import { createCampaignTables } from './campaigns.js';
import { TrackError, type Handler, type TrackContext } from './context.js';
import { createDeliveryTables, deliveryHandlers } from './deliveries.js';
import { createDeviceTables, deviceHandlers } from './devices.js';
import { entityHandlers } from './entities.js';
import { renderTrackError } from './errors.js';
import { createEventTables, eventHandlers } from './events.js';
import { createFormTables, formHandlers } from './forms.js';
import { mergeHandlers } from './merge.js';
import { createObjectTables } from './objects.js';
import { createPeopleTables } from './people.js';
import { profileHandlers } from './profiles.js';
import { createSegmentTables, segmentHandlers } from './segments.js';
import { operationTable } from './table.js';
import { workspaceView, type WorkspaceView } from './view.js';
import { authenticate, createWorkspaceTables, regionHandlers, registerWorkspace, type Credentials, type Region } from './workspaces.js';

export interface CustomerioEmulatorOptions {
  /** The clock handlers read; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

export interface CustomerioEmulator {
  /** The US host's base URL (track.customer.io). */
  url: string;
  /** The EU host's base URL (track-eu.customer.io). */
  euUrl: string;
  /** Every request either host received, refused ones included: the US host's, then the EU host's. */
  readonly requests: RecordedRequest[];
  clock: Clock;
  db: Database.Database;
  /** The workspace of these credentials (created on first use), to seed and inspect. */
  workspace(credentials: Credentials): WorkspaceView;
  /** Empties all state and the request logs. */
  reset(): void;
  close(): Promise<void>;
}

export const customerioHandlers: Record<string, Handler> = combineHandlers(
  'Customer.io',
  profileHandlers,
  mergeHandlers,
  eventHandlers,
  deviceHandlers,
  segmentHandlers,
  deliveryHandlers,
  formHandlers,
  entityHandlers,
  regionHandlers,
);

/** In dependency order: the tables that reference people come after them. */
function createTables(db: Database.Database): void {
  createWorkspaceTables(db);
  createPeopleTables(db);
  createActivityTables(db);
  createEventTables(db);
  createDeviceTables(db);
  createSegmentTables(db);
  createCampaignTables(db);
  createDeliveryTables(db);
  createObjectTables(db);
  createFormTables(db);
}

export async function startCustomerioEmulator(options: CustomerioEmulatorOptions = {}): Promise<CustomerioEmulator> {
  checkHandlers('Customer.io', operationTable, customerioHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  // Deleting a person deletes what belongs to them (devices, events, memberships, ...).
  db.pragma('foreign_keys = ON');
  createTables(db);
  const ctx: TrackContext = { db, clock };

  const host = (region: Region) =>
    startEmulator<number>({
      operations: operationTable,
      authenticate: (headers) => inTransaction(() => authenticate(db, headers.authorization, region).environmentId),
      handle: ({ label, params, query, body }, workspace) => {
        try {
          return inTransaction(() => customerioHandlers[label]!({ operation: label, params, query, body, workspace }, ctx));
        } catch (error) {
          if (error instanceof TrackError) error.operation = label;
          throw error;
        }
      },
      renderError: renderTrackError,
    });
  const [us, eu] = await Promise.all([host('us'), host('eu')]);

  return {
    url: us.url,
    euUrl: eu.url,
    get requests() {
      return [...us.requests, ...eu.requests];
    },
    clock,
    db,
    workspace: (credentials) => workspaceView(ctx, inTransaction(() => registerWorkspace(db, credentials)), inTransaction),
    reset() {
      resetTables(db, createTables);
      us.requests.length = 0;
      eu.requests.length = 0;
    },
    async close() {
      await Promise.all([us.close(), eu.close()]);
      db.close();
    },
  };
}
