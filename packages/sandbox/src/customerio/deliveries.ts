/**
 * Deliveries (one message sent to one person) and what is reported about them: metrics from other
 * channels (ReportCustomMetrics, v2 delivery events) and unsubscribes attributed to a delivery.
 * A delivery outlives its person, as message history does.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { recordActivity } from './activities.js';
import { accepted, notFound, unixNow, type Handler, type TrackContext, type TrackRequest } from './context.js';
import { findPerson, savePerson } from './people.js';

export interface Delivery {
  delivery_id: string;
  person: string;
  campaign_id: number | null;
  created_at: number;
  /** When the person unsubscribed through this delivery. */
  unsubscribed_at: number | null;
}

export interface DeliveryMetric {
  metric: string;
  recipient: string | null;
  reason: string | null;
  href: string | null;
  device_token: string | null;
  at: number;
}

export function createDeliveryTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS deliveries (
      workspace INTEGER NOT NULL,
      delivery_id TEXT NOT NULL,
      person TEXT NOT NULL,
      campaign_id INTEGER,
      created_at INTEGER NOT NULL,
      unsubscribed_at INTEGER,
      PRIMARY KEY (workspace, delivery_id)
    );
    CREATE TABLE IF NOT EXISTS delivery_metrics (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      workspace INTEGER NOT NULL,
      delivery_id TEXT NOT NULL,
      metric TEXT NOT NULL,
      recipient TEXT,
      reason TEXT,
      href TEXT,
      device_token TEXT,
      at INTEGER NOT NULL
    );
  `);
}

/** A message sent to the person; its id is what links and unsubscribe pages carry. */
export function createDelivery(ctx: TrackContext, workspace: number, person: string, campaignId: number | null): string {
  const deliveryId = randomBytes(18).toString('base64url');
  ctx.db
    .prepare('INSERT INTO deliveries (workspace, delivery_id, person, campaign_id, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(workspace, deliveryId, person, campaignId, unixNow(ctx));
  return deliveryId;
}

export function findDelivery({ db }: TrackContext, workspace: number, deliveryId: string): Delivery | undefined {
  return db
    .prepare('SELECT delivery_id, person, campaign_id, created_at, unsubscribed_at FROM deliveries WHERE workspace = ? AND delivery_id = ?')
    .get(workspace, deliveryId) as Delivery | undefined;
}

function requireDelivery(ctx: TrackContext, workspace: number, deliveryId: string): Delivery {
  const delivery = findDelivery(ctx, workspace, deliveryId);
  if (!delivery) throw notFound(`delivery ${deliveryId}`);
  return delivery;
}

export function deliveriesOf({ db }: TrackContext, workspace: number, person: string): Delivery[] {
  return db
    .prepare('SELECT delivery_id, person, campaign_id, created_at, unsubscribed_at FROM deliveries WHERE workspace = ? AND person = ? ORDER BY rowid')
    .all(workspace, person) as Delivery[];
}

export function metricsOf({ db }: TrackContext, workspace: number, deliveryId: string): DeliveryMetric[] {
  return db
    .prepare('SELECT metric, recipient, reason, href, device_token, at FROM delivery_metrics WHERE workspace = ? AND delivery_id = ? ORDER BY seq')
    .all(workspace, deliveryId) as DeliveryMetric[];
}

/** Merge: the primary gains the secondary's message history. */
export function mergeDeliveries({ db }: TrackContext, workspace: number, secondary: string, primary: string): void {
  db.prepare('UPDATE deliveries SET person = ? WHERE workspace = ? AND person = ?').run(primary, workspace, secondary);
}

interface MetricInput {
  metric: string;
  timestamp?: number;
  recipient?: unknown;
  reason?: string;
  href?: string;
  device_token?: string;
}

export function recordMetric(ctx: TrackContext, workspace: number, deliveryId: string, input: MetricInput): void {
  requireDelivery(ctx, workspace, deliveryId);
  ctx.db
    .prepare('INSERT INTO delivery_metrics (workspace, delivery_id, metric, recipient, reason, href, device_token, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(
      workspace,
      deliveryId,
      input.metric,
      input.recipient === undefined ? null : String(input.recipient),
      input.reason ?? null,
      input.href ?? null,
      input.device_token ?? null,
      input.timestamp ?? unixNow(ctx),
    );
}

export const deliveryHandlers: Record<string, Handler> = {
  unsubscribe: ({ params, body, workspace }: TrackRequest<{ unsubscribe?: boolean } | undefined>, ctx) => {
    const delivery = requireDelivery(ctx, workspace, params.delivery_id!);
    // Without `unsubscribe: true` the call only acknowledges the delivery.
    if (body?.unsubscribe !== true) return accepted;
    const person = findPerson(ctx, workspace, { kind: 'cio_id', value: delivery.person });
    if (!person) return accepted;
    person.attributes.unsubscribed = true;
    savePerson(ctx, workspace, person);
    ctx.db.prepare('UPDATE deliveries SET unsubscribed_at = ? WHERE workspace = ? AND delivery_id = ?').run(unixNow(ctx), workspace, delivery.delivery_id);
    recordActivity(ctx, workspace, 'unsubscribed', person.cio_id, { delivery_id: delivery.delivery_id, campaign_id: delivery.campaign_id });
    return accepted;
  },

  metrics: ({ body, workspace }, ctx) => {
    const { delivery_id, ...metric } = body as MetricInput & { delivery_id: string };
    recordMetric(ctx, workspace, delivery_id, metric);
    return accepted;
  },
};
