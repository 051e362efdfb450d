/**
 * An OTLP/HTTP receiver on loopback for tests: it takes what the exporters post to /v1/traces and
 * /v1/metrics, in either encoding (http/json, or the default http/protobuf, decoded here by the wire format
 * alone: the OTLP packages ship an encoder, not a decoder), and keeps the spans and metric names it read.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as received; kinds are OTLP's numbers (1 internal, 2 server, 3 client). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  /** 2 is an error. */
  statusCode: number;
  links: { traceId: string; spanId: string }[];
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, string | number | boolean>;
}

export interface ReceivedPost {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** Names of the metrics received (either encoding: protobuf bodies are read for their names too). */
  metricNames: Set<string>;
  posts: ReceivedPost[];
  /** Resolves once `check` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(check: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const posts: ReceivedPost[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(request.headers['content-type'] ?? '');
      const path = request.url ?? '';
      posts.push({ path, contentType, body });
      const json = contentType.includes('json');
      if (path === '/v1/traces') spans.push(...(json ? spansOfJson(JSON.parse(body.toString('utf8'))) : spansOfProtobuf(body)));
      if (path === '/v1/metrics')
        for (const name of json ? metricNamesOfJson(JSON.parse(body.toString('utf8'))) : metricNamesOfProtobuf(body)) metricNames.add(name);
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    posts,
    async waitFor(check, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!check(spans)) {
        if (Date.now() > until) throw new Error(`spans not received in ${timeoutMs} ms; received: ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type JsonValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
type JsonKeyValue = { key: string; value: JsonValue };

const jsonAttributes = (list: JsonKeyValue[] = []) =>
  Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue) ?? '',
    ]),
  );

function spansOfJson(body: any): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans: any) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope: any) =>
      (scope.spans ?? []).map(
        (span: any): ReceivedSpan => ({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: span.kind,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: jsonAttributes(span.attributes),
          statusCode: span.status?.code ?? 0,
          links: (span.links ?? []).map((link: any) => ({ traceId: link.traceId, spanId: link.spanId })),
          resource: jsonAttributes(resourceSpans.resource?.attributes),
        }),
      ),
    ),
  );
}

const metricNamesOfJson = (body: any): string[] =>
  (body.resourceMetrics ?? []).flatMap((resource: any) => (resource.scopeMetrics ?? []).flatMap((scope: any) => (scope.metrics ?? []).map((m: any) => m.name)));

/** The fields of one protobuf message: field number, then a varint (as bigint) or the bytes of the others. */
function fields(buffer: Buffer): [number, bigint | Buffer][] {
  const out: [number, bigint | Buffer][] = [];
  let at = 0;
  const varint = () => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const [field, wire] = [tag >> 3, tag & 7];
    if (wire === 0) {
      out.push([field, varint()]);
      continue;
    }
    if (wire !== 1 && wire !== 2 && wire !== 5) throw new Error(`protobuf wire type ${wire} is not one OTLP uses`);
    const size = wire === 1 ? 8 : wire === 5 ? 4 : Number(varint());
    out.push([field, buffer.subarray(at, at + size)]);
    at += size;
  }
  return out;
}

const bytesOf = (message: Buffer, field: number) =>
  fields(message)
    .filter(([f]) => f === field)
    .map(([, v]) => v as Buffer);
const textOf = (message: Buffer, field: number) => bytesOf(message, field)[0]?.toString('utf8');

/** KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string 1, bool 2, int64 3, double 4 }. */
function protobufAttributes(messages: Buffer[]): Record<string, string | number | boolean> {
  return Object.fromEntries(
    messages.map((pair) => {
      const [kind, value] = fields(bytesOf(pair, 2)[0] ?? Buffer.alloc(0))[0] ?? [0, Buffer.alloc(0)];
      const decoded =
        kind === 1
          ? (value as Buffer).toString('utf8')
          : kind === 2
            ? value === 1n
            : kind === 3
              ? Number(value)
              : kind === 4
                ? (value as Buffer).readDoubleLE(0)
                : '';
      return [textOf(pair, 1) ?? '', decoded];
    }),
  );
}

/**
 * ExportTraceServiceRequest { ResourceSpans 1 }, ResourceSpans { Resource 1, ScopeSpans 2 },
 * ScopeSpans { scope 1, Span 2 }, Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6,
 * start 7, end 8, attributes 9, links 13, status 15 }, Link { trace_id 1, span_id 2 }, Status { code 3 }.
 */
function spansOfProtobuf(body: Buffer): ReceivedSpan[] {
  return bytesOf(body, 1).flatMap((resourceSpans) => {
    const resource = protobufAttributes(bytesOf(bytesOf(resourceSpans, 1)[0] ?? Buffer.alloc(0), 1));
    return bytesOf(resourceSpans, 2).flatMap((scope) =>
      bytesOf(scope, 2).map((span): ReceivedSpan => {
        const parent = bytesOf(span, 4)[0];
        const field = (n: number) => fields(span).find(([f]) => f === n)?.[1];
        const status = bytesOf(span, 15)[0];
        return {
          traceId: bytesOf(span, 1)[0]!.toString('hex'),
          spanId: bytesOf(span, 2)[0]!.toString('hex'),
          parentSpanId: parent?.length ? parent.toString('hex') : undefined,
          name: textOf(span, 5) ?? '',
          kind: Number(field(6) ?? 0n),
          startNs: (field(7) as Buffer).readBigUInt64LE(0),
          endNs: (field(8) as Buffer).readBigUInt64LE(0),
          attributes: protobufAttributes(bytesOf(span, 9)),
          statusCode: status ? Number(fields(status).find(([f]) => f === 3)?.[1] ?? 0n) : 0,
          links: bytesOf(span, 13).map((link) => ({ traceId: bytesOf(link, 1)[0]!.toString('hex'), spanId: bytesOf(link, 2)[0]!.toString('hex') })),
          resource,
        };
      }),
    );
  });
}

/** ExportMetricsServiceRequest { ResourceMetrics 1 }, ResourceMetrics { ScopeMetrics 2 }, ScopeMetrics { Metric 2 }, Metric { name 1 }. */
const metricNamesOfProtobuf = (body: Buffer): string[] =>
  bytesOf(body, 1).flatMap((resource) => bytesOf(resource, 2).flatMap((scope) => bytesOf(scope, 2).map((metric) => textOf(metric, 1) ?? '')));
