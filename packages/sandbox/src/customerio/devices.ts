/**
 * Push devices. A device id (the push token) belongs to one person at a time: adding it to another
 * person moves it. Adding a device to someone new creates the person, as any data about them does.
 */
import type Database from 'better-sqlite3';
import { accepted, unixNow, type Handler, type TrackContext, type TrackRequest } from './context.js';
import { findPerson, pathRef, personFor, type PersonRef } from './people.js';

export interface DeviceInput {
  id: string;
  platform: string;
  last_used?: number;
  attributes?: Record<string, string>;
}

export interface Device {
  device_id: string;
  platform: string;
  last_used: number;
  attributes: Record<string, string>;
}

export function createDeviceTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS devices (
    workspace INTEGER NOT NULL,
    device_id TEXT NOT NULL,
    person TEXT NOT NULL,
    platform TEXT NOT NULL,
    last_used INTEGER NOT NULL,
    attributes TEXT NOT NULL,
    PRIMARY KEY (workspace, device_id),
    FOREIGN KEY (workspace, person) REFERENCES people (workspace, cio_id) ON DELETE CASCADE
  )`);
}

export function addDevice(ctx: TrackContext, workspace: number, ref: PersonRef, device: DeviceInput): void {
  const person = personFor(ctx, workspace, ref);
  if (!person) return;
  ctx.db
    .prepare(
      `INSERT INTO devices (workspace, device_id, person, platform, last_used, attributes) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (workspace, device_id) DO UPDATE SET person = excluded.person, platform = excluded.platform, last_used = excluded.last_used, attributes = excluded.attributes`,
    )
    .run(workspace, device.id, person.cio_id, device.platform, device.last_used ?? unixNow(ctx), JSON.stringify(device.attributes ?? {}));
}

/** Removes the device from the person; nothing happens when they do not have it. */
export function removeDevice(ctx: TrackContext, workspace: number, ref: PersonRef, deviceId: string): void {
  const person = findPerson(ctx, workspace, ref);
  if (person) ctx.db.prepare('DELETE FROM devices WHERE workspace = ? AND device_id = ? AND person = ?').run(workspace, deviceId, person.cio_id);
}

export function devicesOf({ db }: TrackContext, workspace: number, person: string): Device[] {
  const rows = db
    .prepare('SELECT device_id, platform, last_used, attributes FROM devices WHERE workspace = ? AND person = ? ORDER BY device_id')
    .all(workspace, person) as Array<Omit<Device, 'attributes'> & { attributes: string }>;
  return rows.map((row) => ({ ...row, attributes: JSON.parse(row.attributes) as Record<string, string> }));
}

export const deviceHandlers: Record<string, Handler> = {
  add_device: ({ params, body, workspace }: TrackRequest<{ device: DeviceInput }>, ctx) => {
    addDevice(ctx, workspace, pathRef(params.identifier!), body.device);
    return accepted;
  },
  delete_device: ({ params, workspace }, ctx) => {
    removeDevice(ctx, workspace, pathRef(params.identifier!), params.device_id!);
    return accepted;
  },
};
