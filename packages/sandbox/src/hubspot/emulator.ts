/**
 * The HubSpot marketing emulator: the generated operation table, one handler per operation (by topic),
 * HubSpot's bearer-token apps and error shape, over the shared emulator layer.
 */
import type Database from 'better-sqlite3';
import { bearerToken, defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { appIdFor, createAppTables, unauthorized } from './apps.js';
import { campaignAssetHandlers } from './campaign-assets.js';
import { campaignBudgetHandlers } from './campaign-budget.js';
import { campaignReportHandlers } from './campaign-reports.js';
import { createCampaignTables } from './campaign-store.js';
import { campaignHandlers } from './campaigns.js';
import type { Handler, HubspotCaller, HubspotContext } from './context.js';
import { createCrmTables } from './crm.js';
import { createSendTables, emailSendHandlers } from './email-sends.js';
import { createEmailTables, emailHandlers } from './emails.js';
import { hubspotRateLimit, renderHubspotError } from './errors.js';
import { eventAttendanceHandlers } from './event-attendance.js';
import { eventListHandlers } from './event-lists.js';
import { createEventTables } from './event-store.js';
import { eventHandlers } from './events.js';
import { createFormTables, formHandlers, submitForm, type FormSubmission } from './forms.js';
import { checkSmtpPassword, createSmtpTokenTables, smtpTokenHandlers } from './smtp-tokens.js';
import { operationTable } from './table.js';

export type HubspotEmulatorOptions = EmulatorOptions;

/** The HubSpot emulator's own methods, besides the shared ones. */
export interface HubspotTools {
  /** The app id a token acts as (assigned on first sight, from 1000001). */
  appIdFor(token: string): number;
  /** Submits to a form as a visitor would (HubSpot takes submissions on another API); throws a HubspotError when refused. */
  submitForm(formId: string, fields: Record<string, string>): FormSubmission;
  /** Whether `password` is the current password of SMTP token `tokenId`. */
  checkSmtpPassword(tokenId: string, password: string): boolean;
}

export type HubspotEmulator = Emulator & HubspotTools;

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
  eventAttendanceHandlers,
  eventListHandlers,
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

export const startHubspotEmulator = defineEmulator<HubspotCaller, HubspotContext, HubspotTools>({
  name: 'HubSpot',
  operations: operationTable,
  handlers: hubspotHandlers,
  createTables,
  context: ({ db, clock }) => ({ db, clock }),
  credentials: {
    read: bearerToken,
    refuse: unauthorized,
    principal: (token, { db }) => ({ appId: appIdFor(db, token) }),
    tokenPrefix: 'pat-na1-',
  },
  renderError: renderHubspotError,
  rateLimit: hubspotRateLimit,
  api: ({ inTransaction }, ctx) => ({
    appIdFor: (token) => appIdFor(ctx.db, token),
    submitForm: (formId, fields) => inTransaction(() => submitForm(ctx, formId, fields)),
    checkSmtpPassword: (tokenId, password) => checkSmtpPassword(ctx, tokenId, password),
  }),
});
