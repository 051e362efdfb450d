/**
 * OpenTelemetry's place in the core: what the dispatcher, the upstream client and the engine need to
 * record spans and metrics through the OpenTelemetry API, and nothing of an SDK. A host that collects
 * telemetry registers an SDK and hands its tracer and meter to `enableTelemetry` (the engine's
 * telemetry/sdk.ts does); until then both are absent and every instrumented path is one property read.
 *
 * Why not the API's own no-op: it would still allocate a span and a closure on every call, and loading
 * the API at all (65 modules) costs `quiver mcp` some 20 ms of its cold start. So the API is imported
 * only when telemetry is enabled, and code reads it from here.
 */
import type * as Api from '@opentelemetry/api';

export interface Telemetry {
  /** The OpenTelemetry API, once telemetry is enabled. */
  api?: typeof Api;
  /** Present while spans are recorded. */
  tracer?: Api.Tracer;
  /** Present while metrics are recorded. */
  meter?: Api.Meter;
  /** Whether a tool call's span may name its user (`user.id`); off unless a setting allows it. */
  recordUserId: boolean;
  /** Present while metrics are recorded: the duration histograms, which the metric readers read at collection time. */
  histograms?: DurationHistograms;
}

export const telemetry: Telemetry = { recordUserId: false };

/** Counts enablements, so that instruments made from an earlier meter are made again from the current one. */
let generation = 0;

export async function enableTelemetry(options: {
  tracer?: Api.Tracer;
  meter?: Api.Meter;
  histograms?: DurationHistograms;
  recordUserId?: boolean;
}): Promise<void> {
  telemetry.api = await import('@opentelemetry/api');
  telemetry.tracer = options.tracer;
  telemetry.meter = options.meter;
  telemetry.histograms = options.histograms;
  telemetry.recordUserId = options.recordUserId ?? false;
  generation++;
}

export function disableTelemetry(): void {
  telemetry.tracer = undefined;
  telemetry.meter = undefined;
  telemetry.histograms = undefined;
  telemetry.recordUserId = false;
  generation++;
}

/**
 * A set of instruments, made from the current meter the first time it is asked for; undefined while
 * metrics are off. (The API offers no proxy for meters, so instruments cannot be made ahead of the SDK.)
 */
export function instrumentSet<T>(create: (meter: Api.Meter) => T): () => T | undefined {
  let made: { generation: number; instruments: T } | undefined;
  return () => {
    const meter = telemetry.meter;
    if (!meter) return undefined;
    if (made?.generation !== generation) made = { generation, instruments: create(meter) };
    return made.instruments;
  };
}

/**
 * Bucket bounds of every duration histogram, in seconds: OpenTelemetry's advice for HTTP durations, and
 * 30 s and 60 s beyond it for the slow upstream (an upstream call's deadline is 60 s by default).
 */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60];

/** One series of a duration histogram, aggregated as the SDK's explicit-bucket histogram aggregates one. */
export interface DurationSeries {
  attributes: Api.Attributes;
  /** When its first value was recorded (for a reader that takes deltas, its first of the interval), in milliseconds since the epoch. */
  startTime: number;
  /** Values at or under each bound of DURATION_BUCKETS, then over the last. */
  counts: number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

/** Series by their key, as one reader is to see them. */
export type DurationAggregate = Map<string, DurationSeries>;

/** What the SDK records past its default limit of series an instrument keeps, in place of a new series. */
const OVERFLOW_KEY = '\0overflow';
const OVERFLOW_ATTRIBUTES: Api.Attributes = { 'otel.metric.overflow': true };
const SERIES_LIMIT = 2000 - 1;

/**
 * A duration histogram (seconds, DURATION_BUCKETS) aggregated here rather than by the SDK, which hashes a
 * value's attributes (sorting and JSON-encoding them) on every record: three histograms a tool call made
 * that hashing most of its telemetry's cost. A series is found by the values that set its attributes (a
 * toolkit, a method, a status class); `attributes` makes them from the values once, for a series not seen before. Each
 * metric reader has an aggregate of its own (`aggregates`, read or taken at collection time by the engine's
 * telemetry/sdk.ts), so that one taking deltas and one keeping totals each see what the SDK would show them.
 */
export class DurationHistogram {
  readonly aggregates: DurationAggregate[];

  constructor(
    readonly name: string,
    readonly description: string,
    private readonly attributes: SeriesAttributes,
    readers: number,
  ) {
    this.aggregates = Array.from({ length: readers }, () => new Map());
  }

  record(seconds: number, values: readonly string[]): void {
    // As the SDK: a negative value is refused, and NaN falls in no bucket.
    if (!(seconds >= 0)) return;
    // No value holds a line break (names, methods, status classes, error kinds, route templates).
    const key = values.join('\n');
    // The bucket as the SDK finds it: the first bound the value does not exceed.
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    for (const aggregate of this.aggregates) {
      let series = aggregate.get(key);
      if (!series) {
        const overflow = aggregate.size >= SERIES_LIMIT;
        series = overflow ? aggregate.get(OVERFLOW_KEY) : undefined;
        if (!series) {
          series = {
            attributes: overflow ? OVERFLOW_ATTRIBUTES : this.attributes(values),
            startTime: Date.now(),
            counts: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
            sum: 0,
            count: 0,
            min: Infinity,
            max: -Infinity,
          };
          aggregate.set(overflow ? OVERFLOW_KEY : key, series);
        }
      }
      series.counts[bucket]!++;
      series.sum += seconds;
      series.count++;
      if (seconds < series.min) series.min = seconds;
      if (seconds > series.max) series.max = seconds;
    }
  }

  /** Reader `reader`'s aggregate since it last took it, which starts again empty: what a reader taking deltas reports. */
  take(reader: number): DurationAggregate {
    const taken = this.aggregates[reader]!;
    this.aggregates[reader] = new Map();
    return taken;
  }
}

/** Every duration histogram of one telemetry setup, in the order they were first asked for (the SDK's order of instruments). */
export class DurationHistograms {
  private readonly made = new Map<string, DurationHistogram>();

  /** `readers`: how many metric readers read them. */
  constructor(readonly readers: number) {}

  get(name: string, description: string, attributes: SeriesAttributes): DurationHistogram {
    let histogram = this.made.get(name);
    if (!histogram) {
      histogram = new DurationHistogram(name, description, attributes, this.readers);
      this.made.set(name, histogram);
    }
    return histogram;
  }

  all(): Iterable<DurationHistogram> {
    return this.made.values();
  }
}

/** The attributes of a duration histogram's series, from the values it is recorded with. */
export type SeriesAttributes = (values: readonly string[]) => Api.Attributes;

/** The duration histogram `name` of the current telemetry, undefined while metrics are off. */
export const durationHistogram =
  (name: string, description: string, attributes: SeriesAttributes): (() => DurationHistogram | undefined) =>
  () =>
    telemetry.histograms?.get(name, description, attributes);

/** `2xx`, `4xx`, ...: what metrics label a status with, since the class is what a dashboard asks about. */
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/** Methods kept as they are in attributes; any other is `_OTHER`, as OpenTelemetry's HTTP conventions say. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
export const httpMethod = (method: string): string => (KNOWN_METHODS.has(method) ? method : '_OTHER');

/** Work that may wait for the current answer to leave. */
const later: Array<() => void> = [];

/**
 * Runs `work` once this turn of the event loop has done its I/O (setImmediate), which is after the answer
 * being prepared has been written: recording metrics and finished spans costs the caller no latency, as
 * the execution records are written after the answer too.
 */
export function afterAnswer(work: () => void): void {
  if (later.push(work) === 1) setImmediate(runLater);
}

/** Does now what `afterAnswer` put off: before spans and metrics are exported (a flush, a shutdown). */
export function runLater(): void {
  for (const work of later.splice(0)) work();
}

/** When this process's performance clock started: fixed for its life, and each read of `performance.timeOrigin` asks the runtime again. */
const timeOrigin = performance.timeOrigin;

/** Wall-clock milliseconds with a fraction: a span's start time, taken before its span is made. */
export const spanClock = (): number => timeOrigin + performance.now();

/** A span's options, its kind by name: the API's enum is not loaded while telemetry is off. */
export type SpanOptions = Omit<Api.SpanOptions, 'kind'> & { kind?: keyof typeof Api.SpanKind };

/**
 * Runs `work` in a new span, active while it runs, when spans are recorded; plainly otherwise. A throw
 * marks the span an error by the exception's name only: messages may quote an upstream or an input.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Api.Span | undefined) => Promise<T>): Promise<T> {
  const { tracer, api } = telemetry;
  if (!tracer || !api) return work(undefined);
  return tracer.startActiveSpan(name, { ...options, kind: api.SpanKind[options.kind ?? 'INTERNAL'] }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, (error as Error)?.name ?? 'Error');
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with `error.type`, and no message. */
export function failed(span: Api.Span, errorType: string): void {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: telemetry.api!.SpanStatusCode.ERROR });
}

/** The active span's ids for a log line, when spans are recorded and one is active. */
export function traceFields(): { trace_id: string; span_id: string } | undefined {
  const { tracer, api } = telemetry;
  if (!tracer || !api) return undefined;
  const active = api.trace.getSpanContext(api.context.active());
  return active && api.isSpanContextValid(active) ? { trace_id: active.traceId, span_id: active.spanId } : undefined;
}

/** Adds the active trace context (`traceparent`, `tracestate`) to headers or an MCP `_meta`, when spans are recorded. */
export function injectTraceContext(carrier: Record<string, unknown>): void {
  const { tracer, api } = telemetry;
  if (tracer && api) api.propagation.inject(api.context.active(), carrier);
}

/** The active span's W3C traceparent, to be stored with work that runs later; undefined when spans are not recorded. */
export function activeTraceParent(): string | undefined {
  const carrier: { traceparent?: string } = {};
  injectTraceContext(carrier);
  return carrier.traceparent;
}

/** A link to the span a stored traceparent names, for a span that runs in a trace of its own; none when there is nothing to link. */
export function linkTo(traceparent: string | null | undefined): Api.Link[] {
  const { tracer, api } = telemetry;
  if (!tracer || !api || !traceparent) return [];
  const linked = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, { traceparent }));
  return linked && api.isSpanContextValid(linked) ? [{ context: linked }] : [];
}
