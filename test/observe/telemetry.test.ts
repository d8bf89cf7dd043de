// Spans over OTLP (issue 31 §4): with telemetry on, a call that arrives with a `traceparent` is exported as a span
// in the caller's trace, with a child span for the upstream hop whose id is the parent the upstream server was sent;
// script steps and agent turns are spans of their own. A receiver in the test takes the OTLP/HTTP exports and decodes
// them with the OpenTelemetry libraries (test/helpers/otlp-receiver.ts); nothing on the way is a stand-in. With
// telemetry off, no OpenTelemetry SDK module is loaded at all.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load.ts';
import { defineCapability } from '../../src/core/capability.ts';
import { parseTraceparent } from '../../src/core/trace-context.ts';
import { telemetrySettings } from '../../src/observe/telemetry.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { ADMIN, testHub } from '../helpers/hub.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';
import { type HubPair, hubBehindHub, waitFor } from '../sources/upstream/helpers.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${CALLER_SPAN}-01`;
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** The spans of one trace once `count` of them have arrived (bounded wait: exports are batched). */
function spansOf(traceId: string, count: number): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return spans.length >= count ? spans : undefined;
    },
    10_000,
    `${count} span(s) of trace ${traceId}`,
  );
}

describe('a traced call through Switchboard to a real upstream', () => {
  let pair: HubPair;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  /** The `_meta.traceparent` of each call the upstream received. */
  const received: unknown[] = [];

  beforeAll(async () => {
    pair = await hubBehindHub({
      setUp: (far) => {
        far.services.registry.add(
          defineCapability({
            name: 'trace.seen',
            description: 'Records the traceparent of the call it received.',
            input: z.object({}),
            handle: (_input, ctx) => {
              received.push(ctx.meta?.traceparent);
              return 'seen';
            },
          }),
        );
      },
      // near exports its spans; far (the upstream) only records what it was sent.
      project: (dir) =>
        appendFileSync(
          join(dir, '.switchboard', 'config.toml'),
          `\n[telemetry]\nendpoint = "${receiver.url}"\nservice_name = "near"\n`,
        ),
      tool: 'far__trace__seen',
    });
    pair.near.services.registry.add(
      defineCapability({
        name: 'local.cached',
        description: 'Answers from the result cache the second time.',
        input: z.object({}),
        policy: { cache: { ttlMs: 60_000 } },
        handle: () => 'fresh',
      }),
    );
    pair.near.services.registry.add(
      defineCapability({
        name: 'local.fails',
        description: 'Always fails.',
        input: z.object({}),
        handle: () => {
          throw new Error('broken on purpose');
        },
      }),
    );
    client = new Client({ name: 't', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as any);
    transport = new StreamableHTTPClientTransport(new URL(`${pair.nearHttp.url}/mcp`));
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await pair?.close();
  });

  it('exports the call as a child of the caller’s span, and the upstream hop as its child with the id sent upstream', async () => {
    received.length = 0;
    const result = await client.callTool({
      name: 'far__trace__seen',
      arguments: {},
      _meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
    });
    expect(result.isError).toBeFalsy();
    await pair.near.flush();
    const spans = await spansOf(TRACE, 2);
    const call = spans.find((s) => s.kind === SERVER);
    const hop = spans.find((s) => s.kind === CLIENT);
    expect(call).toMatchObject({
      name: 'tools/call far__trace__seen',
      parentSpanId: CALLER_SPAN,
      service: 'near',
      scope: 'switchboard',
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'far__trace__seen',
        'switchboard.capability': 'far.trace__seen',
        'switchboard.principal': expect.any(String),
        'switchboard.transport': 'http',
        'switchboard.outcome': 'ok',
        'switchboard.breaker.state': 'closed',
        'switchboard.upstream.server': 'far',
        'switchboard.upstream.round_trip_ms': expect.any(Number),
      },
    });
    expect(call?.attributes['switchboard.cache.hit']).toBeUndefined();
    expect(hop).toMatchObject({
      name: 'tools/call trace__seen',
      parentSpanId: call?.spanId,
      attributes: { 'mcp.method.name': 'tools/call', 'switchboard.upstream.server': 'far' },
    });
    // The hop lies inside the call, and the round trip is the hop's own length (within a millisecond).
    const hopMs = Number(((hop as ReceivedSpan).endNs - (hop as ReceivedSpan).startNs) / 1000n) / 1000;
    expect(hop!.startNs >= call!.startNs && hop!.endNs <= call!.endNs).toBe(true);
    expect(Math.abs((call!.attributes['switchboard.upstream.round_trip_ms'] as number) - hopMs)).toBeLessThan(1);
    // What the upstream was sent names the exported hop as parent, in the caller's trace.
    expect(received).toEqual([`00-${TRACE}-${hop?.spanId}-01`]);
    // The audit record names the same trace.
    const [row] = await pair.near.services.store.audit.query({ limit: 1 });
    expect(row).toMatchObject({ capability: 'far.trace__seen', traceId: TRACE });
  });

  it('starts a new trace for a call that brings none, and passes that one on', async () => {
    received.length = 0;
    await client.callTool({ name: 'far__trace__seen', arguments: {} });
    const sent = parseTraceparent(received[0]);
    expect(sent).toBeDefined();
    await pair.near.flush();
    const spans = await spansOf(sent!.traceId, 2);
    const call = spans.find((s) => s.kind === SERVER);
    expect(call?.parentSpanId).toBe('');
    expect(spans.find((s) => s.kind === CLIENT)?.spanId).toBe(sent?.spanId);
    const [row] = await pair.near.services.store.audit.query({ limit: 1 });
    expect(row?.traceId).toBe(sent?.traceId);
  });

  it('marks a cache hit and a failure', async () => {
    const traced = (name: string, span: string) =>
      pair.near.pipeline.call({
        principal: ADMIN,
        name,
        input: {},
        transport: 'cli',
        trace: parseTraceparent(`00-${TRACE.replace(/^4/, '5')}-${span}-01`),
      });
    await traced('local.cached', '1000000000000001');
    await traced('local.cached', '1000000000000002');
    const failed = await traced('local.fails', '1000000000000003');
    expect(failed.ok).toBe(false);
    await pair.near.flush();
    const spans = await spansOf(TRACE.replace(/^4/, '5'), 3);
    const byParent = (id: string) => spans.find((s) => s.parentSpanId === id);
    expect(byParent('1000000000000001')?.attributes['switchboard.cache.hit']).toBe(false);
    expect(byParent('1000000000000002')?.attributes['switchboard.cache.hit']).toBe(true);
    expect(byParent('1000000000000003')).toMatchObject({
      name: 'tools/call local__fails',
      status: { code: ERROR, message: 'INTERNAL' },
      attributes: { 'switchboard.outcome': 'INTERNAL', 'error.type': 'INTERNAL', 'switchboard.transport': 'cli' },
    });
  });
});

describe('a script’s auto steps', () => {
  it('are spans of the call that runs them; a command gets its step’s span as TRACEPARENT', async () => {
    const hub = await testHub({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    try {
      const SRC = join(import.meta.dirname, '../../src/index.ts');
      projectScripts(hub.dir, {
        'nl/steps.md': '# steps\n\nRun the steps.\n',
        'compiled/steps.mjs': `import { auto, llm } from ${JSON.stringify(SRC)};
export default function* () {
  yield auto('echo "tp=$TRACEPARENT"');
  yield auto('exit 3');
}`,
      });
      const trace = '6bf92f3577b34da6a3ce929d0e0e4736';
      const out = await hub.pipeline.call({
        principal: ADMIN,
        name: 'script.start',
        input: { name: 'steps' },
        transport: 'cli',
        trace: parseTraceparent(`00-${trace}-${CALLER_SPAN}-01`),
      });
      expect(out.ok).toBe(true);
      const text = JSON.stringify(out.ok ? out.raw?.content : '');
      await hub.flush();
      const spans = await spansOf(trace, 3);
      const call = spans.find((s) => s.name === 'tools/call script__start');
      const steps = spans.filter((s) => s.name === 'script step steps');
      expect(steps).toHaveLength(2);
      for (const step of steps) expect(step.parentSpanId).toBe(call?.spanId);
      const [echo, exit] = steps.sort((a, b) => Number(a.startNs - b.startNs));
      expect(echo.attributes).toMatchObject({
        'switchboard.script.step': 'steps[0]',
        'switchboard.script.step.kind': 'shell',
        'process.exit.code': 0,
      });
      expect(text).toContain(`tp=00-${trace}-${echo.spanId}-01`);
      expect(exit).toMatchObject({
        status: { code: ERROR },
        attributes: { 'process.exit.code': 3, 'error.type': 'nonzero_exit' },
      });
    } finally {
      await hub.close();
    }
  });
});

describe('a sub-agent’s turn', () => {
  it('is a span of the call, and the parent its model requests name', async () => {
    const api = await startFakeAnthropic({ replies: ['traced answer'] });
    const hub = await agentHub({
      anthropic: api.url,
      config: '[agents]\ndefault_provider = "anthropic"',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    try {
      const trace = '7bf92f3577b34da6a3ce929d0e0e4736';
      const out = await hub.pipeline.call({
        principal: ADMIN,
        name: 'agent.start',
        input: { session_name: 'traced', prompt: 'hello' },
        transport: 'cli',
        trace: parseTraceparent(`00-${trace}-${CALLER_SPAN}-01`),
      });
      expect(out.ok).toBe(true);
      await hub.flush();
      const spans = await spansOf(trace, 2);
      const call = spans.find((s) => s.name === 'tools/call agent__start');
      const turn = spans.find((s) => s.name.startsWith('invoke_agent'));
      expect(turn).toMatchObject({
        parentSpanId: call?.spanId,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': 'anthropic',
          'switchboard.agent.session': 'traced',
          'switchboard.agent.status': 'completed',
          'gen_ai.usage.output_tokens': expect.any(Number),
        },
      });
      expect(api.messages()[0].headers.traceparent).toBe(`00-${trace}-${turn?.spanId}-01`);
    } finally {
      await hub.close();
      await api.close();
    }
  });
});

describe('a tool a sub-agent calls', () => {
  it('is a span of the turn that called it', async () => {
    const api = await startFakeAnthropic({
      replies: [{ content: [{ type: 'tool_use', name: 'system__health', input: {} }] }, 'healthy'],
    });
    const hub = await agentHub({
      anthropic: api.url,
      config: '[agents]\ndefault_provider = "anthropic"',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    try {
      const trace = '9af92f3577b34da6a3ce929d0e0e4736';
      const out = await hub.pipeline.call({
        principal: ADMIN,
        name: 'agent.start',
        input: { session_name: 'tooled', prompt: 'check health', enable_builtins: true },
        transport: 'cli',
        trace: parseTraceparent(`00-${trace}-${CALLER_SPAN}-01`),
      });
      expect(out.ok).toBe(true);
      await hub.flush();
      const spans = await spansOf(trace, 3);
      const turn = spans.find((s) => s.name.startsWith('invoke_agent'));
      const tool = spans.find((s) => s.name === 'tools/call system__health');
      expect(tool).toMatchObject({
        parentSpanId: turn?.spanId,
        attributes: { 'switchboard.principal': 'agent:tooled' },
      });
    } finally {
      await hub.close();
      await api.close();
    }
  });
});

describe('switching it on and off', () => {
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' };

  it('is on with an OTLP endpoint variable or a [telemetry] table, off otherwise', () => {
    expect(telemetrySettings(undefined, {})).toBeUndefined();
    expect(telemetrySettings(undefined, on)).toEqual({
      url: 'http://collector:4318/v1/traces',
      headers: {},
      serviceName: 'switchboard',
    });
    // The per-signal variable is the URL itself; the table wins over the variables.
    expect(telemetrySettings(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/custom' })?.url).toBe(
      'http://c/custom',
    );
    expect(
      telemetrySettings(
        { endpoint: 'http://127.0.0.1:4318', service_name: 'hub-a', headers: { 'x-key': 'b' } },
        { ...on, OTEL_SERVICE_NAME: 'other', OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a,x-team=t%20one' },
      ),
    ).toEqual({
      url: 'http://127.0.0.1:4318/v1/traces',
      headers: { 'x-key': 'b', 'x-team': 't one' },
      serviceName: 'hub-a',
    });
    expect(telemetrySettings({ enabled: true }, {})?.url).toBe('http://localhost:4318/v1/traces');
  });

  it('honours enabled = false, OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none', () => {
    expect(telemetrySettings({ enabled: false, endpoint: 'http://127.0.0.1:4318' }, on)).toBeUndefined();
    expect(telemetrySettings({ endpoint: 'http://127.0.0.1:4318' }, { OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(telemetrySettings(undefined, { ...on, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(telemetrySettings(undefined, { ...on, OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  it('refuses a [telemetry] table it cannot use, naming the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-telemetry-'));
    mkdirSync(join(dir, '.switchboard'));
    const load = (toml: string) => {
      writeFileSync(join(dir, '.switchboard', 'config.toml'), toml);
      return () => loadConfig(dir, { SWITCHBOARD_HOME: join(dir, 'home') });
    };
    try {
      expect(load('[telemetry]\nendpoint = "grpc://127.0.0.1:4317"\n')).toThrow(
        /telemetry\.endpoint: expected the http:\/\/ or https:\/\/ base URL of an OTLP\/HTTP receiver/,
      );
      expect(load('[telemetry]\nheaders = { "bad header" = "x" }\n')).toThrow(/telemetry\.headers.*HTTP header name/);
      expect(load('[telemetry]\nenabled = "yes"\n')).toThrow(/telemetry\.enabled/);
      expect(load('[telemetry]\nendpont = "http://127.0.0.1:4318"\n')).toThrow(/endpont/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads no OpenTelemetry SDK module when off (and does when on)', () => {
    const child = (env: Record<string, string>) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/fixtures/telemetry/loaded-modules.ts'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as { modules: number; loaded: string[] };
    };
    const off = child({});
    // prom-client (the /metrics exporter) requires @opentelemetry/api, the no-op API, in every hub; nothing else.
    expect(off.loaded.filter((m) => !m.includes('/@opentelemetry/api/'))).toEqual([]);
    expect(off.modules).toBeGreaterThan(100);
    // The same check sees the SDK when telemetry is on (a receiver that answers, so closing is quick).
    const onLoaded = child({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }).loaded;
    expect(onLoaded.some((m) => m.includes('/@opentelemetry/sdk-trace-base/'))).toBe(true);
    expect(onLoaded.some((m) => m.includes('/@opentelemetry/exporter-trace-otlp-proto/'))).toBe(true);
    expect(onLoaded.some((m) => m.endsWith('/src/observe/otel.ts'))).toBe(true);
  }, 120_000);
});
