import { createRequire } from 'node:module';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry, type Telemetry } from '@a2a-inbound/telemetry';
import type { System } from '@a2a-inbound/embedded';

// The tracing SDK starts before the system's modules load (everything that reaches express or @grpc/grpc-js is
// imported dynamically below, after it), as each service's instrument.ts does before its main.
const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let system: System;
const SECRET_TEXT = 'the-secret-message-text-7f3a9c';

const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;

/** The span's ancestors, nearest first (within the exported spans). */
function ancestors(span: ReadableSpan, all: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(all.map((s) => [idOf(s), s]));
  const out: ReadableSpan[] = [];
  for (let p = parentOf(span); p !== undefined;) {
    const next = byId.get(p);
    if (!next) break;
    out.push(next);
    p = parentOf(next);
  }
  return out;
}

describe('distributed tracing through the embedded system (in-process, in-memory exporter)', () => {
  let a2aKey: string;
  let taskId: string;

  beforeAll(async () => {
    telemetry = startTelemetry({
      serviceName: 'a2a-inbound-test',
      env: {},
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    // The services' CJS bundles `require` these (after instrument.ts started the SDK), which is what the
    // instrumentations hook. vitest would load them through Node's ESM loader instead, which the require
    // hooks do not see: require them first, so the ESM loader reuses the patched CommonJS modules.
    const req = createRequire(import.meta.url);
    for (const m of ['@grpc/grpc-js', 'express']) req(m);
    const { eventually, rpc, textMessage } = await import('@a2a-inbound/testing');
    const { silentLogger } = await import('@a2a-inbound/logger');
    const { startSystem } = await import('@a2a-inbound/embedded');
    system = await startSystem({ env: { PORT: '0', HOST: '127.0.0.1' }, log: silentLogger() });
    a2aKey = system.tasks.seed!.credentials!.a2aKey;
    exporter.reset();
    const res = await rpc(
      `${system.baseUrl}/agents/demo-echo/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage(SECRET_TEXT) } },
      { key: a2aKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.status.state).toBe('completed');
    taskId = res.body.result.id as string;
    // The apply-event span of the terminal event (alone or at the end of a batch) ends after the answer may have left: wait for it.
    await eventually(async () =>
      exporter
        .getFinishedSpans()
        .some((s) => s.name === 'tasks.apply_event' && s.attributes['a2a.event.last'] === 'status')
        ? true
        : undefined,
    );
  });

  afterAll(async () => {
    await system?.close();
    await telemetry?.shutdown();
  });

  it('one message/send is one trace: gateway HTTP → JSON-RPC → tasks gRPC → bus → runner run → tasks apply-event', () => {
    const spans = exporter.getFinishedSpans();
    const named = (pred: (s: ReadableSpan) => boolean, what: string): ReadableSpan => {
      const found = spans.find(pred);
      if (!found) throw new Error(`no ${what} span among: ${spans.map((s) => s.name).join(', ')}`);
      return found;
    };
    const http = named(
      (s) => s.kind === SpanKind.SERVER && s.instrumentationScope.name === '@opentelemetry/instrumentation-http',
      'gateway HTTP server',
    );
    const jsonRpc = named((s) => s.name === 'a2a message/send', 'gateway JSON-RPC');
    const grpcServer = named(
      (s) =>
        s.kind === SpanKind.SERVER &&
        s.instrumentationScope.name === '@opentelemetry/instrumentation-grpc' &&
        s.name.endsWith('/SendMessage'),
      'tasks gRPC server',
    );
    const send = named((s) => s.name === 'tasks.send', 'tasks send');
    const publish = named((s) => s.name === 'publish a2a.run.requested', 'bus publish of the run request');
    const consume = named((s) => s.name === 'process a2a.run.requested', 'runner bus consume');
    const run = named((s) => s.name === 'runner.run', 'runner run');
    const apply = named(
      // One event, or a batch of the run's events (ADR 0025), ending with the terminal status.
      (s) => s.name === 'tasks.apply_event' && s.attributes['a2a.event.last'] === 'status',
      'tasks apply-event',
    );

    // One trace.
    const traceId = http.spanContext().traceId;
    for (const s of [jsonRpc, grpcServer, send, publish, consume, run, apply])
      expect({ span: s.name, traceId: s.spanContext().traceId }).toEqual({ span: s.name, traceId });

    // The parent chain, hop by hop.
    expect(parentOf(http)).toBeUndefined();
    expect(ancestors(jsonRpc, spans)).toContain(http);
    expect(ancestors(grpcServer, spans)).toContain(jsonRpc);
    expect(parentOf(send)).toBe(idOf(grpcServer));
    expect(ancestors(publish, spans)).toContain(send);
    // Across the bus: the consumer's parent is the producer span, carried in the message headers.
    expect(parentOf(consume)).toBe(idOf(publish));
    expect(consume.links.map((l) => l.context.spanId)).toContain(idOf(publish));
    expect(parentOf(run)).toBe(idOf(consume));
    expect(run.attributes).toMatchObject({ 'a2a.runtime': expect.any(String), 'a2a.task_id': taskId });
    expect(run.attributes['a2a.agent_version']).toBeDefined();
    // The runner's events come back over the bus: applying one descends from (and links to) the run.
    const applyConsume = spans.find((s) => idOf(s) === parentOf(apply))!;
    expect(applyConsume.name).toBe('process a2a.task.events');
    const runnerPublish = spans.find((s) => idOf(s) === parentOf(applyConsume))!;
    expect(runnerPublish.name).toBe('publish a2a.task.events');
    expect(parentOf(runnerPublish)).toBe(idOf(run));
    expect(applyConsume.links.map((l) => l.context.spanId)).toContain(idOf(runnerPublish));

    expect(jsonRpc.attributes).toMatchObject({
      'rpc.system': 'jsonrpc',
      'rpc.method': 'message/send',
      'a2a.agent_id': 'demo-echo',
      'a2a.task_id': taskId,
      // The version as on every binding's span (the 1.0 ones say '1.0').
      'a2a.protocol_version': '0.3.0',
    });
  });

  it('no span attribute, event or link carries the API key or the message text', () => {
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(8);
    const dump = JSON.stringify(
      spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events,
        links: s.links,
        status: s.status,
      })),
    );
    expect(dump).not.toContain(a2aKey);
    expect(dump).not.toContain(SECRET_TEXT);
    // …while the test itself can see both (the strings did travel through the traced code).
    expect(dump).toContain('demo-echo');
  });
});
