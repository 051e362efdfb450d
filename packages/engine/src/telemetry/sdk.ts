/**
 * The OpenTelemetry SDK, set up in one place for every command that runs tools (`serve`, `mcp`, `call`,
 * `worker`): spans exported over OTLP/HTTP when an endpoint is configured, metrics over OTLP likewise and,
 * for the engine, in the Prometheus text format at /metrics. The instrumented code (the dispatcher, the
 * upstream client, the HTTP and MCP servers, the workers, the scheduler) uses the API alone, through
 * @quiver/core's `telemetry`; this module gives it a tracer and a meter.
 *
 * Loaded only when something is to be collected: a command with telemetry off never loads the SDK. The
 * resource names the service and nothing of the process: its command line may hold a secret
 * (`quiver worker --secret ...`), so no process or host detector runs.
 */
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { disableTelemetry, DURATION_BUCKETS, DurationHistograms, enableTelemetry, runLater } from '@quiver/core';
import type { HrTime, Meter } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { AggregationTemporality, MetricData, MetricProducer, MetricReader, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Sampler } from '@opentelemetry/sdk-trace-node';
import type { TelemetrySettings } from './settings.js';

export { telemetrySettings, type TelemetrySettings } from './settings.js';

/** The engine's version, as its package says (dist/telemetry/ is two folders below it). */
const VERSION: string = createRequire(import.meta.url)('../../package.json').version;

export interface Telemetry {
  /** Spans are recorded and exported. */
  tracing: boolean;
  /** The Prometheus text of every instrument, when started with `prometheus`. */
  scrape?: () => Promise<string>;
  /** Exports the spans and metrics recorded so far, now rather than at the next interval. */
  flush(): Promise<void>;
  /** Exports what is still pending and stops: before the process ends (a `quiver call`), or a test's next setup. */
  shutdown(): Promise<void>;
}

/**
 * Starts what the settings ask for; `prometheus` adds the reader behind the engine's /metrics. Undefined
 * when nothing is to be collected.
 */
export async function startTelemetry(settings: TelemetrySettings, options: { prometheus?: boolean } = {}): Promise<Telemetry | undefined> {
  if (!settings.traces && !settings.metrics && !options.prometheus) return undefined;
  const api = await import('@opentelemetry/api');
  const { defaultResource, resourceFromAttributes } = await import('@opentelemetry/resources');
  const resource = defaultResource().merge(
    resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName, 'service.version': VERSION }),
  );
  // A failed export is said on standard error (one line), rather than lost without a word.
  api.diag.setLogger({ ...silent, error: (message) => process.stderr.write(`quiver: telemetry: ${failure(message)}\n`) }, api.DiagLogLevel.ERROR);

  let tracerProvider: import('@opentelemetry/sdk-trace-node').NodeTracerProvider | undefined;
  if (settings.traces) {
    const sdk = await import('@opentelemetry/sdk-trace-node');
    const { OTLPTraceExporter } =
      settings.traces.protocol === 'http/json'
        ? await import('@opentelemetry/exporter-trace-otlp-http')
        : await import('@opentelemetry/exporter-trace-otlp-proto');
    tracerProvider = new sdk.NodeTracerProvider({
      resource,
      sampler: samplerOf(sdk, settings.sampler),
      spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: settings.traces.url }))],
    });
    // The context manager (AsyncLocalStorage) that nests spans across awaits, and W3C trace context for workers.
    tracerProvider.register();
  }

  let meterProvider: import('@opentelemetry/sdk-metrics').MeterProvider | undefined;
  let histograms: DurationHistograms | undefined;
  let scrape: Telemetry['scrape'];
  let stopProcessMetrics = () => {};
  if (settings.metrics || options.prometheus) {
    const sdk = await import('@opentelemetry/sdk-metrics');
    const { MeterProvider, PeriodicExportingMetricReader } = sdk;
    const readers: MetricReader[] = [];
    histograms = new DurationHistograms((options.prometheus ? 1 : 0) + (settings.metrics ? 1 : 0));
    // The duration histograms of the reader made next (the readers' order), with the temporality it asks for.
    const producer = (temporality: AggregationTemporality) => histogramProducer(api, sdk, histograms!, readers.length, temporality, resource);
    if (options.prometheus) {
      const { PrometheusExporter, PrometheusSerializer } = await import('@opentelemetry/exporter-prometheus');
      const reader = new PrometheusExporter({ preventServerStart: true, metricProducers: [producer(sdk.AggregationTemporality.CUMULATIVE)] });
      const serializer = new PrometheusSerializer();
      readers.push(reader);
      scrape = async () => {
        runLater();
        return serializer.serialize(withUnitSuffixes((await reader.collect()).resourceMetrics));
      };
    }
    if (settings.metrics) {
      const { OTLPMetricExporter } =
        settings.metrics.protocol === 'http/json'
          ? await import('@opentelemetry/exporter-metrics-otlp-http')
          : await import('@opentelemetry/exporter-metrics-otlp-proto');
      const exporter = new OTLPMetricExporter({ url: settings.metrics.url });
      readers.push(
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: settings.metrics.intervalMs,
          exportTimeoutMillis: Math.min(30_000, settings.metrics.intervalMs),
          metricProducers: [producer(exporter.selectAggregationTemporality(sdk.InstrumentType.HISTOGRAM))],
        }),
      );
    }
    meterProvider = new MeterProvider({ resource, readers });
    stopProcessMetrics = observeProcess(meterProvider.getMeter('quiver', VERSION));
  }

  await enableTelemetry({
    tracer: tracerProvider?.getTracer('quiver', VERSION),
    meter: meterProvider?.getMeter('quiver', VERSION),
    histograms,
    recordUserId: settings.recordUserId,
  });
  let stopping: Promise<void> | undefined;
  return {
    tracing: tracerProvider !== undefined,
    scrape,
    flush: async () => {
      runLater();
      await Promise.all([tracerProvider?.forceFlush(), meterProvider?.forceFlush()]);
    },
    shutdown: () =>
      (stopping ??= (async () => {
        runLater();
        disableTelemetry();
        stopProcessMetrics();
        await Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
        api.trace.disable();
        api.context.disable();
        api.propagation.disable();
        api.diag.disable();
      })()),
  };
}

/**
 * The duration histograms (aggregated by core's DurationHistogram, not by the SDK) as reader `reader` collects
 * them, in the SDK's form for its own histograms, under the same instrumentation scope: for a reader keeping
 * totals, every series since it began; for one taking deltas, the series recorded since its previous
 * collection, each reported then starting at that collection's time.
 */
function histogramProducer(
  api: typeof import('@opentelemetry/api'),
  sdk: typeof import('@opentelemetry/sdk-metrics'),
  histograms: DurationHistograms,
  reader: number,
  temporality: AggregationTemporality,
  resource: Resource,
): MetricProducer {
  const delta = temporality === sdk.AggregationTemporality.DELTA;
  const scope = { name: 'quiver', version: VERSION };
  /** The previous collection's time, and the series each histogram reported then (delta only). */
  let previous: { time: number; reported: Map<string, Set<string>> } | undefined;
  return {
    collect: async () => {
      const time = Date.now();
      const reported = new Map<string, Set<string>>();
      const metrics: MetricData[] = [];
      for (const histogram of histograms.all()) {
        const aggregate = delta ? histogram.take(reader) : histogram.aggregates[reader]!;
        if (!aggregate.size) continue;
        const before = previous?.reported.get(histogram.name);
        if (delta) reported.set(histogram.name, new Set(aggregate.keys()));
        metrics.push({
          descriptor: { name: histogram.name, description: histogram.description, unit: 's', valueType: api.ValueType.DOUBLE },
          aggregationTemporality: temporality,
          dataPointType: sdk.DataPointType.HISTOGRAM,
          dataPoints: [...aggregate].map(([key, { attributes, startTime, counts, sum, count, min, max }]) => ({
            attributes,
            startTime: hrTime(before?.has(key) ? previous!.time : startTime),
            endTime: hrTime(time),
            value: { min, max, sum, count, buckets: { boundaries: DURATION_BUCKETS, counts: [...counts] } },
          })),
        });
      }
      previous = { time, reported };
      return { resourceMetrics: { resource, scopeMetrics: metrics.length ? [{ scope, metrics }] : [] }, errors: [] };
    },
  };
}

/** Milliseconds since the epoch as OpenTelemetry's [seconds, nanoseconds]. */
const hrTime = (ms: number): HrTime => [Math.trunc(ms / 1000), Math.round((ms % 1000) * 1e6)];

const silent = { verbose() {}, debug() {}, info() {}, warn() {}, error() {} };

/** The SDK reports a failure as the error's JSON, stack and all: its message is the line. */
function failure(message: string): string {
  try {
    const parsed = JSON.parse(message) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : message;
  } catch {
    return message;
  }
}

function samplerOf(sdk: typeof import('@opentelemetry/sdk-trace-node'), { name, ratio }: TelemetrySettings['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new sdk.AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new sdk.TraceIdRatioBasedSampler(ratio)
      : new sdk.AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;
}

/** Unit suffixes of Prometheus names, by OpenTelemetry unit (the JavaScript serializer leaves them out). */
const PROMETHEUS_UNITS: Record<string, string> = { s: 'seconds', By: 'bytes' };

/**
 * The metrics with their Prometheus names as OpenTelemetry's compatibility rules write them:
 * `http.server.request.duration` in seconds is scraped as `http_server_request_duration_seconds`.
 */
function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric) => {
        const suffix = PROMETHEUS_UNITS[metric.descriptor.unit];
        if (!suffix || metric.descriptor.name.endsWith(`.${suffix}`)) return metric;
        return { ...metric, descriptor: { ...metric.descriptor, name: `${metric.descriptor.name}.${suffix}` } };
      }),
    })),
  };
}

/**
 * The process's own gauges, as OpenTelemetry's process and Node.js conventions name them: CPU time by mode,
 * resident memory, and the event loop's delay (its percentiles since the previous collection).
 */
function observeProcess(meter: Meter): () => void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu = meter.createObservableCounter('process.cpu.time', { unit: 's', description: 'CPU time of this process, by mode (user, system).' });
  const memory = meter.createObservableUpDownCounter('process.memory.usage', { unit: 'By', description: 'Resident memory of this process.' });
  const delays = {
    p50: meter.createObservableGauge('nodejs.eventloop.delay.p50', { unit: 's', description: 'Median event loop delay since the previous collection.' }),
    p99: meter.createObservableGauge('nodejs.eventloop.delay.p99', {
      unit: 's',
      description: '99th percentile of the event loop delay since the previous collection.',
    }),
    max: meter.createObservableGauge('nodejs.eventloop.delay.max', { unit: 's', description: 'Longest event loop delay since the previous collection.' }),
  };
  const observe = (result: import('@opentelemetry/api').BatchObservableResult) => {
    const usage = process.cpuUsage();
    result.observe(cpu, usage.user / 1e6, { 'cpu.mode': 'user' });
    result.observe(cpu, usage.system / 1e6, { 'cpu.mode': 'system' });
    result.observe(memory, process.memoryUsage.rss());
    // Nanoseconds; a histogram that saw nothing yet reports NaN and a huge minimum.
    if (delay.count > 0) {
      result.observe(delays.p50, delay.percentile(50) / 1e9);
      result.observe(delays.p99, delay.percentile(99) / 1e9);
      result.observe(delays.max, delay.max / 1e9);
    }
    delay.reset();
  };
  meter.addBatchObservableCallback(observe, [cpu, memory, delays.p50, delays.p99, delays.max]);
  return () => {
    meter.removeBatchObservableCallback(observe, [cpu, memory, delays.p50, delays.p99, delays.max]);
    delay.disable();
  };
}
