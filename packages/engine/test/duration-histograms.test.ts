/**
 * The duration histograms, which are aggregated outside the SDK, against the SDK's own histogram fed the same
 * values: the same series, buckets, sums, counts, minimum and maximum at GET /metrics (totals since start) and
 * over OTLP with delta temporality (each export only what came since the one before).
 */
import { DURATION_BUCKETS, durationHistogram, telemetry as core } from '@quiver/core';
import { startTelemetry, telemetrySettings, type Telemetry } from '@quiver/engine/telemetry';
import { startOtlpReceiver, type OtlpReceiver } from '@quiver/test-support/otlp-receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SERIES: Record<string, Record<string, string>> = {
  ok: { 'quiver.toolkit': 'Traced', 'quiver.outcome': 'success' },
  failed: { 'quiver.toolkit': 'Traced', 'quiver.outcome': 'error', 'error.type': 'UPSTREAM_RUNTIME_SERVER_ERROR' },
};

describe('a duration histogram', () => {
  let telemetry: Telemetry;
  let receiver: OtlpReceiver;
  let record: (seconds: number, series: string) => void;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // The exporter reads its temporality from the environment as it is made.
    process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = 'delta';
    try {
      telemetry = (await startTelemetry(
        telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_EXPORTER: 'none' }),
        { prometheus: true },
      ))!;
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE;
    }
    const ours = durationHistogram('test.ours.duration', 'Durations.', ([series]) => SERIES[series!]!)()!;
    const theirs = core.meter!.createHistogram('test.theirs.duration', {
      unit: 's',
      description: 'Durations.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    record = (seconds, series) => {
      ours.record(seconds, [series]);
      theirs.record(seconds, SERIES[series]);
    };
  });

  afterAll(async () => {
    await telemetry?.shutdown();
    await receiver?.close();
  });

  /** The lines of each histogram in the scrape, ours renamed as the SDK's. */
  async function scraped() {
    const lines = (await telemetry.scrape!()).split('\n');
    const of = (name: string) => lines.filter((line) => line.includes(name)).map((line) => line.replaceAll('test_ours_', 'test_theirs_'));
    return { ours: of('test_ours_duration_seconds'), theirs: of('test_theirs_duration_seconds') };
  }

  type Point = { attributes: unknown[]; startTimeUnixNano: string; timeUnixNano: string } & Record<string, unknown>;
  /** Each histogram's points in the latest OTLP export, times apart. */
  async function exported() {
    const before = receiver.posts.length;
    await telemetry.flush();
    const metrics = receiver.posts
      .slice(before)
      .filter((post) => post.path === '/v1/metrics')
      .flatMap((post) => JSON.parse(post.body.toString('utf8')).resourceMetrics)
      .flatMap((resource: { scopeMetrics: { metrics: unknown[] }[] }) => resource.scopeMetrics.flatMap((scope) => scope.metrics)) as {
      name: string;
      histogram: { aggregationTemporality: number; dataPoints: Point[] };
    }[];
    const of = (name: string) => {
      const histogram = metrics.find((metric) => metric.name === name)?.histogram;
      const points = histogram?.dataPoints ?? [];
      return {
        temporality: histogram?.aggregationTemporality,
        points: points.map(({ startTimeUnixNano, timeUnixNano, ...point }) => point),
        times: points.map((point) => [point.startTimeUnixNano, point.timeUnixNano]),
      };
    };
    return { ours: of('test.ours.duration'), theirs: of('test.theirs.duration') };
  }

  it('reports what the SDK reports for the same values, in totals and in deltas', async () => {
    // On bounds, between them, past the last, and zero.
    for (const seconds of [0, 0.005, 0.0051, 0.3, 0.3, 61, 2.5]) record(seconds, 'ok');
    for (const seconds of [0.01, 12]) record(seconds, 'failed');
    const first = await scraped();
    expect(first.ours.length).toBeGreaterThan(2 * (DURATION_BUCKETS.length + 3));
    expect(first.ours).toEqual(first.theirs);
    const firstExport = await exported();
    expect(firstExport.ours.temporality).toBe(1); // delta
    expect(firstExport.ours.points).toHaveLength(2);
    expect(firstExport.ours).toMatchObject({ temporality: firstExport.theirs.temporality, points: firstExport.theirs.points });

    // Only one series more: the export has it alone, from the previous export's time; the scrape has both, in total.
    for (const seconds of [0.02, 0.7]) record(seconds, 'ok');
    const second = await scraped();
    expect(second.ours).toEqual(second.theirs);
    expect(second.ours).not.toEqual(first.ours);
    const secondExport = await exported();
    expect(secondExport.ours.points).toEqual(secondExport.theirs.points);
    expect(secondExport.ours.points).toEqual([expect.objectContaining({ count: 2, sum: 0.72, min: 0.02, max: 0.7 })]);
    const okFirst = firstExport.ours.points.findIndex((point) => JSON.stringify(point.attributes).includes('success'));
    expect(secondExport.ours.times[0]![0]).toBe(firstExport.ours.times[okFirst]![1]);

    // Nothing new: no series at all, as the SDK exports none.
    const third = await exported();
    expect(third.ours.points).toEqual([]);
    expect(third.theirs.points).toEqual([]);
  });
});
