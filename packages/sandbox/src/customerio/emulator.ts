/**
 * The Customer.io Track API emulator: the generated operation table served on two hosts, the US one
 * (track.customer.io) and the EU one (track-eu.customer.io), over one state, on the shared emulator
 * layer. Credentials are HTTP Basic (site id and API key); each site id is a workspace in one region.
 */
import type Database from 'better-sqlite3';
import { defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { createActivityTables } from './activities.js';
import { createCampaignTables } from './campaigns.js';
import type { Handler, TrackCaller, TrackContext } from './context.js';
import { createDeliveryTables, deliveryHandlers } from './deliveries.js';
import { createDeviceTables, deviceHandlers } from './devices.js';
import { entityHandlers } from './entities.js';
import { renderTrackError, trackRateLimit } from './errors.js';
import { createEventTables, eventHandlers } from './events.js';
import { createFormTables, formHandlers } from './forms.js';
import { mergeHandlers } from './merge.js';
import { createObjectTables } from './objects.js';
import { createPeopleTables } from './people.js';
import { profileHandlers } from './profiles.js';
import { createSegmentTables, segmentHandlers } from './segments.js';
import { operationTable } from './table.js';
import { workspaceView, type WorkspaceView } from './view.js';
import {
  authenticate,
  createWorkspaceTables,
  credentialOf,
  readCredentials,
  regionHandlers,
  registerWorkspace,
  unauthorized,
  type Credentials,
  type Region,
} from './workspaces.js';

export type CustomerioEmulatorOptions = EmulatorOptions;

/** The Customer.io emulator's own methods, besides the shared ones (`url` is the US host's). */
export interface CustomerioTools {
  /** The EU host's base URL (track-eu.customer.io). */
  euUrl: string;
  /** The workspace of these credentials (created, and the credentials issued, on first use), to seed and inspect. */
  workspace(credentials: Credentials): WorkspaceView;
}

export type CustomerioEmulator = Emulator & CustomerioTools;

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

export const startCustomerioEmulator = defineEmulator<TrackCaller, TrackContext, CustomerioTools>({
  name: 'Customer.io',
  operations: operationTable,
  handlers: customerioHandlers,
  createTables,
  // Deleting a person deletes what belongs to them (devices, events, memberships, ...).
  foreignKeys: true,
  hosts: ['us', 'eu'] satisfies Region[],
  context: ({ db, clock }) => ({ db, clock }),
  credentials: {
    read: readCredentials,
    refuse: unauthorized,
    principal: (credential, { db }, host) => ({ workspace: authenticate(db, credential, host as Region).environmentId }),
  },
  renderError: renderTrackError,
  rateLimit: trackRateLimit,
  api: ({ db, urls, inTransaction, issue }, ctx) => ({
    euUrl: urls.eu!,
    workspace: (credentials) => {
      const workspace = inTransaction(() => registerWorkspace(db, credentials));
      issue(credentialOf(credentials));
      return workspaceView(ctx, workspace, inTransaction);
    },
  }),
});
