/**
 * The HubSpot marketing emulator: the shared HTTP layer (routing, validation, recording) over the
 * generated operation table, HubSpot's auth and error shape, SQLite state, and one handler per operation.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { appIdFor, bearerToken, createAppTables } from './apps.js';
import { campaignAssetHandlers } from './campaign-assets.js';
import { campaignBudgetHandlers } from './campaign-budget.js';
import { campaignReportHandlers } from './campaign-reports.js';
import { createCampaignTables } from './campaign-store.js';
import { campaignHandlers } from './campaigns.js';
import type { Handler, HubspotContext } from './context.js';
import { createCrmTables } from './crm.js';
import { createSendTables, emailSendHandlers } from './email-sends.js';
import { createEmailTables, emailHandlers } from './emails.js';
import { renderHubspotError } from './errors.js';
import { createEventTables, eventHandlers } from './events.js';
import { createFormTables, formHandlers, submitForm, type FormSubmission } from './forms.js';
import { checkSmtpPassword, createSmtpTokenTables, smtpTokenHandlers } from './smtp-tokens.js';
import { operationTable } from './table.js';

export interface HubspotEmulatorOptions {
  /** The clock handlers read; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

export interface HubspotEmulator {
  /** Base URL, e.g. http://127.0.0.1:43121; operation paths go after it. */
  url: string;
  /** Every request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  /** The state, for tests to seed or inspect directly. */
  db: Database.Database;
  /** The app id a token acts as (assigned on first sight, from 1000001). */
  appIdFor(token: string): number;
  /** Submits to a form as a visitor would (HubSpot takes submissions on another API); throws a HubspotError when refused. */
  submitForm(formId: string, fields: Record<string, string>): FormSubmission;
  /** Whether `password` is the current password of SMTP token `tokenId`. */
  checkSmtpPassword(tokenId: string, password: string): boolean;
  /** Empties all state (seed records come back) and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export const hubspotHandlers: Record<string, Handler> = combineHandlers(
  'HubSpot',
  campaignHandlers,
  campaignBudgetHandlers,
  campaignAssetHandlers,
  campaignReportHandlers,
  formHandlers,
  emailHandlers,
  emailSendHandlers,
  smtpTokenHandlers,
  eventHandlers,
);

function createTables(db: Database.Database): void {
  createAppTables(db);
  createCrmTables(db);
  createCampaignTables(db);
  createFormTables(db);
  createEmailTables(db);
  createSendTables(db);
  createSmtpTokenTables(db);
  createEventTables(db);
}

export async function startHubspotEmulator(options: HubspotEmulatorOptions = {}): Promise<HubspotEmulator> {
  checkHandlers('HubSpot', operationTable, hubspotHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  const ctx: HubspotContext = { db, clock };

  const server = await startEmulator<number>({
    operations: operationTable,
    authenticate: (headers) => appIdFor(db, bearerToken(headers.authorization)),
    handle: ({ label, params, query, body }, appId) => inTransaction(() => hubspotHandlers[label]!({ operation: label, params, query, body, appId }, ctx)),
    renderError: renderHubspotError,
  });

  return {
    url: server.url,
    requests: server.requests,
    clock,
    db,
    appIdFor: (token) => appIdFor(db, token),
    submitForm: (formId, fields) => inTransaction(() => submitForm(ctx, formId, fields)),
    checkSmtpPassword: (tokenId, password) => checkSmtpPassword(ctx, tokenId, password),
    reset() {
      resetTables(db, createTables);
      server.requests.length = 0;
    },
    async close() {
      await server.close();
      db.close();
    },
  };
}
