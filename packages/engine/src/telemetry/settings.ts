/**
 * Telemetry's settings, read from OpenTelemetry's standard variables with their standard meaning (and one
 * of ours). A small module of its own, as the authorization server's settings are: the `quiver` command's
 * configuration module reads them with everything else, and loading it loads nothing of OpenTelemetry.
 *
 *   OTEL_SDK_DISABLED=true                        no telemetry at all (the engine's /metrics stays)
 *   OTEL_EXPORTER_OTLP_ENDPOINT                   base URL of an OTLP/HTTP receiver: /v1/traces and /v1/metrics under it
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT            the traces URL itself (wins over the base)
 *   OTEL_EXPORTER_OTLP_METRICS_ENDPOINT           the metrics URL itself (wins over the base)
 *   OTEL_EXPORTER_OTLP_PROTOCOL                   http/protobuf (default) or http/json; _TRACES_ and _METRICS_ forms per signal
 *   OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER   otlp (default) or none
 *   OTEL_SERVICE_NAME                             else service.name of OTEL_RESOURCE_ATTRIBUTES (key=value pairs), else `quiver`
 *   OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG  default parentbased_always_on
 *   OTEL_METRIC_EXPORT_INTERVAL                   milliseconds between OTLP metric exports, default 60000
 *   QUIVER_TELEMETRY_USER_ID=1                    a tool call's span names its user (`user.id`); off by default (on, true or 1)
 *
 * The OTLP exporters also honour the standard variables this module does not read (headers, timeout,
 * compression, certificates: OTEL_EXPORTER_OTLP_HEADERS and the like), as every OpenTelemetry SDK does.
 */
import { switchSetting } from '@quiver/core';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpExport {
  /** The full URL the signal is posted to, e.g. http://collector:4318/v1/traces. */
  url: string;
  protocol: OtlpProtocol;
}

export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface TelemetrySettings {
  serviceName: string;
  /** From OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
  /** Where spans go; absent: no spans are recorded. */
  traces?: OtlpExport;
  /** Where metrics go over OTLP; absent: none (the engine's /metrics is served all the same). */
  metrics?: OtlpExport & { intervalMs: number };
  sampler: { name: SamplerName; ratio: number };
  /** The user id on tool call spans. */
  recordUserId: boolean;
}

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** The settings the environment gives; throws an Error naming the variable for a value that cannot be used. */
export function telemetrySettings(env: Record<string, string | undefined>): TelemetrySettings {
  const value = (name: string) => (env[name] === '' ? undefined : env[name]?.trim());
  const disabled = value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true';
  const sampler = samplerOf(value('OTEL_TRACES_SAMPLER'), value('OTEL_TRACES_SAMPLER_ARG'));
  const intervalText = value('OTEL_METRIC_EXPORT_INTERVAL');
  const intervalMs = intervalText === undefined ? 60_000 : Number(intervalText);
  if (!Number.isInteger(intervalMs) || intervalMs <= 0)
    throw new Error(`OTEL_METRIC_EXPORT_INTERVAL must be a positive whole number of milliseconds, not '${intervalText}'.`);
  const traces = disabled ? undefined : otlpExport(value, 'TRACES');
  const metrics = disabled ? undefined : otlpExport(value, 'METRICS');
  const resourceAttributes = resourceAttributesOf(value('OTEL_RESOURCE_ATTRIBUTES'));
  return {
    serviceName: value('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'quiver',
    resourceAttributes,
    ...(traces && { traces }),
    ...(metrics && { metrics: { ...metrics, intervalMs } }),
    sampler,
    recordUserId: switchSetting('QUIVER_TELEMETRY_USER_ID', value('QUIVER_TELEMETRY_USER_ID'), false),
  };
}

/** One signal's export: its URL (its own variable, else the base with /v1/<signal>) and protocol; undefined when off. */
function otlpExport(value: (name: string) => string | undefined, signal: 'TRACES' | 'METRICS'): OtlpExport | undefined {
  const exporter = value(`OTEL_${signal}_EXPORTER`)?.toLowerCase() ?? 'otlp';
  if (exporter === 'none') return undefined;
  if (exporter !== 'otlp') throw new Error(`OTEL_${signal}_EXPORTER is '${exporter}': the engine exports otlp (or none).`);
  const own = value(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`);
  const base = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (own === undefined && base === undefined) return undefined;
  const url = own ?? `${base!.replace(/\/+$/, '')}/v1/${signal.toLowerCase()}`;
  const variable = own === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${variable} is not a URL: '${own ?? base}'.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`${variable} must be an http or https URL (OTLP over HTTP), not '${own ?? base}'.`);
  const protocolVariable =
    value(`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) === undefined ? 'OTEL_EXPORTER_OTLP_PROTOCOL' : `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const protocol = value(protocolVariable) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(`${protocolVariable} is '${protocol}': the engine exports over OTLP/HTTP, as http/protobuf or http/json (not grpc).`);
  }
  return { url, protocol };
}

function samplerOf(name: string | undefined, argument: string | undefined): TelemetrySettings['sampler'] {
  const sampler = (name?.toLowerCase() ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) throw new Error(`OTEL_TRACES_SAMPLER is '${name}': use one of ${SAMPLERS.join(', ')}.`);
  const ratio = argument === undefined ? 1 : Number(argument);
  if (sampler.endsWith('traceidratio') && !(ratio >= 0 && ratio <= 1))
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not '${argument}'.`);
  return { name: sampler, ratio };
}

/** `key1=value1,key2=value2`, values percent-decoded, as the specification writes them. */
function resourceAttributesOf(text: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`OTEL_RESOURCE_ATTRIBUTES: '${pair.trim()}' is not key=value.`);
    try {
      attributes[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new Error(`OTEL_RESOURCE_ATTRIBUTES: the value of '${pair.slice(0, at).trim()}' is not percent-encoded correctly.`);
    }
  }
  return attributes;
}
