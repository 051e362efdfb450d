/**
 * Telemetry's settings from OpenTelemetry's standard variables, and what the SDK does with them: nothing
 * at all while no endpoint is set, a sampler that records nothing, the user id only when allowed.
 */
import { defineToolkit, localDispatcher, telemetry, UpstreamClient } from '@quiver/core';
import { startTelemetry, telemetrySettings } from '@quiver/engine/telemetry';
import { startOtlpReceiver } from '@quiver/test-support/otlp-receiver';
import { afterEach, describe, expect, it } from 'vitest';

describe('telemetry settings', () => {
  it('are off until an endpoint is set, then export both signals over http/protobuf to /v1/traces and /v1/metrics', () => {
    const off = telemetrySettings({});
    expect(off).toEqual({ serviceName: 'quiver', resourceAttributes: {}, sampler: { name: 'parentbased_always_on', ratio: 1 }, recordUserId: false });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      traces: { url: 'http://collector:4318/v1/traces', protocol: 'http/protobuf' },
      metrics: { url: 'http://collector:4318/v1/metrics', protocol: 'http/protobuf', intervalMs: 60_000 },
    });
  });

  it('take a signal’s own endpoint and protocol as they are, and turn a signal off by its exporter', () => {
    const settings = telemetrySettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'agents-prod',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,team=tools%20team',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
      QUIVER_TELEMETRY_USER_ID: '1',
    });
    expect(settings).toEqual({
      serviceName: 'agents-prod',
      resourceAttributes: { 'deployment.environment.name': 'prod', team: 'tools team' },
      traces: { url: 'https://traces.example/otlp', protocol: 'http/json' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      recordUserId: true,
    });
    expect(telemetrySettings({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource' }).serviceName).toBe('from-resource');
    expect(telemetrySettings({ QUIVER_TELEMETRY_USER_ID: 'on' }).recordUserId).toBe(true);
    expect(telemetrySettings({ QUIVER_TELEMETRY_USER_ID: 'false' }).recordUserId).toBe(false);
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).not.toHaveProperty('traces');
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, "OTEL_EXPORTER_OTLP_PROTOCOL is 'grpc'"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http or https URL'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a URL'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, "OTEL_TRACES_EXPORTER is 'zipkin'"],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, "OTEL_TRACES_SAMPLER is 'sometimes'"],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1'],
    [{ OTEL_METRIC_EXPORT_INTERVAL: '0' }, 'OTEL_METRIC_EXPORT_INTERVAL must be a positive whole number'],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, "OTEL_RESOURCE_ATTRIBUTES: 'novalue' is not key=value"],
    // "yes" was read as off without a word.
    [{ QUIVER_TELEMETRY_USER_ID: 'yes' }, "QUIVER_TELEMETRY_USER_ID must be on or off (true or false, 1 or 0), not 'yes'"],
  ])('refuse %o naming the variable', (env, message) => {
    expect(() => telemetrySettings(env)).toThrow(message);
  });
});

describe('the SDK as the settings start it', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  const toolkit = defineToolkit(
    {
      name: 'Local',
      version: '1',
      description: 'A tool that runs in the process.',
      baseUrl: 'http://127.0.0.1:9',
      tools: [{ name: 'Hello', description: 'Says hello.', parameters: [], output: { description: 'Hello.' }, requirements: {} }],
    },
    { Hello: async () => ({ value: 'hello' }) },
  );

  it('is not started, and nothing is recorded, while no endpoint is set and no scrape is asked for', async () => {
    expect(await startTelemetry(telemetrySettings({}))).toBeUndefined();
    expect(telemetry.tracer).toBeUndefined();
    expect(telemetry.meter).toBeUndefined();
  });

  it("names the call's user on its span only when QUIVER_TELEMETRY_USER_ID=1", async () => {
    const receiver = await startOtlpReceiver();
    for (const allowed of [false, true]) {
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...(allowed && { QUIVER_TELEMETRY_USER_ID: '1' }) };
      const started = (await startTelemetry(telemetrySettings(env)))!;
      const dispatcher = localDispatcher([toolkit], { client: new UpstreamClient() });
      const { executionId } = await dispatcher.dispatch('Local.Hello', {}, { userId: 'person-42' });
      await started.shutdown();
      await receiver.waitFor((spans) => spans.some((span) => span.attributes['gen_ai.tool.call.id'] === executionId));
      const span = receiver.spans.find((candidate) => candidate.attributes['gen_ai.tool.call.id'] === executionId)!;
      expect(span.attributes['user.id']).toBe(allowed ? 'person-42' : undefined);
    }
    await receiver.close();
  });

  it('records no span with the always_off sampler, and still counts the calls', async () => {
    const receiver = await startOtlpReceiver();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'always_off' };
    const started = (await startTelemetry(telemetrySettings(env), { prometheus: true }))!;
    stop = async () => {
      await started.shutdown();
      await receiver.close();
    };
    await localDispatcher([toolkit], { client: new UpstreamClient() }).call('Local.Hello', {});
    await started.flush();
    expect(receiver.spans).toEqual([]);
    expect(await started.scrape!()).toMatch(/^quiver_tool_duration_seconds_count\{.*gen_ai_tool_name="Local.Hello".*\} 1$/m);
  });
});
