/**
 * The engine's gauges, read when metrics are collected: scheduled executions by state and how late the
 * oldest due one is (the same in every process sharing the database), the call records waiting to be
 * written, and PostgreSQL's connection pool.
 */
import { telemetry } from '@quiver/core';
import type { BatchObservableResult } from '@opentelemetry/api';
import type { Engine } from '../engine.js';

/** Starts observing; the function returned stops (when the engine closes). Nothing happens while metrics are off. */
export function observeEngine(engine: Pick<Engine, 'scheduler' | 'executions' | 'store'>): () => void {
  const meter = telemetry.meter;
  if (!meter) return () => {};
  const executions = meter.createObservableGauge('quiver.scheduler.executions', {
    description: 'Scheduled executions in the database, by state: scheduled (not yet due), due (waiting for a scheduler), running.',
  });
  const lag = meter.createObservableGauge('quiver.scheduler.lag', { unit: 's', description: 'How late the oldest due execution is; 0 when none waits.' });
  const queue = meter.createObservableGauge('quiver.executions.record_queue', {
    description: 'Call records of this process waiting to be written to the database.',
  });
  const connections = meter.createObservableUpDownCounter('db.client.connection.count', { description: 'PostgreSQL connections of this process, by state.' });
  const waiting = meter.createObservableUpDownCounter('db.client.connection.pending_requests', {
    description: 'Queries of this process waiting for a PostgreSQL connection.',
  });
  const instruments = [executions, lag, queue, connections, waiting];
  const pool = { 'db.client.connection.pool.name': 'quiver' };
  const observe = async (result: BatchObservableResult) => {
    result.observe(queue, engine.executions.queued);
    if (engine.store.pool) {
      const { totalCount, idleCount, waitingCount } = engine.store.pool;
      result.observe(connections, totalCount - idleCount, { ...pool, 'db.client.connection.state': 'used' });
      result.observe(connections, idleCount, { ...pool, 'db.client.connection.state': 'idle' });
      result.observe(waiting, waitingCount, pool);
    }
    // A database that is away leaves these out of this collection rather than failing it.
    const backlog = await engine.scheduler.backlog().catch(() => undefined);
    if (!backlog) return;
    for (const state of ['scheduled', 'due', 'running'] as const) result.observe(executions, backlog[state], { 'quiver.execution.state': state });
    result.observe(lag, backlog.lagSeconds);
  };
  meter.addBatchObservableCallback(observe, instruments);
  return () => meter.removeBatchObservableCallback(observe, instruments);
}
