import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus, BusHandler, BusMessage } from '@a2a-inbound/ports';
import { tracedBus } from '../src';

/** A bus that delivers on a later turn in the ROOT context: only the headers can carry the trace. */
class RootContextBus implements Bus {
  readonly published: BusMessage[] = [];
  readonly #handlers = new Map<string, BusHandler>();
  async publish(m: BusMessage): Promise<void> {
    this.published.push(m);
    const h = this.#handlers.get(m.topic);
    if (h) setImmediate(() => context.with(ROOT_CONTEXT, () => void h(m)));
  }
  async subscribe(topic: string, _group: string, handler: BusHandler) {
    this.#handlers.set(topic, handler);
    return { close: async () => undefined };
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('tracedBus: W3C trace context in the message headers', () => {
  it('the consumer span is a child of (and links to) the producer span, whatever context delivery runs in', async () => {
    const inner = new RootContextBus();
    const bus = tracedBus(inner);
    const handled = new Promise<string | undefined>((resolve) => {
      void bus.subscribe('t', 'g', async () => resolve(trace.getActiveSpan()?.spanContext().spanId));
    });
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('caller', async (span) => {
      await bus.publish({ topic: 't', key: 'k', value: new Uint8Array([1]), headers: { other: 'kept' } });
      span.end();
    });
    const activeInHandler = await handled;
    await new Promise((r) => setImmediate(r)); // the consumer span ends once the handler's promise settled
    const spans = exporter.getFinishedSpans();
    const byName = (n: string): ReadableSpan => spans.find((s) => s.name === n)!;
    const caller = byName('caller');
    const publish = byName('publish t');
    const consume = byName('process t');
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(consume.kind).toBe(SpanKind.CONSUMER);
    expect(publish.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(consume.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(consume.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(consume.links.map((l) => l.context.spanId)).toEqual([publish.spanContext().spanId]);
    expect(activeInHandler).toBe(consume.spanContext().spanId);
    expect(consume.attributes).toMatchObject({
      'messaging.destination.name': 't',
      'messaging.consumer.group.name': 'g',
    });

    const headers = inner.published[0]!.headers!;
    expect(headers.other).toBe('kept');
    expect(headers.traceparent).toBe(`00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`);
  });

  it('a message without trace headers starts a new trace (no parent leaks from the delivering context)', async () => {
    exporter.reset();
    const inner = new RootContextBus();
    const bus = tracedBus(inner);
    const done = new Promise<void>((resolve) => void bus.subscribe('u', 'g', async () => resolve()));
    await inner.publish({ topic: 'u', key: 'k', value: new Uint8Array() }); // published untraced
    await done;
    await new Promise((r) => setImmediate(r));
    const consume = exporter.getFinishedSpans().find((s) => s.name === 'process u')!;
    expect(consume.parentSpanContext).toBeUndefined();
    expect(consume.links).toEqual([]);
  });

  it('a failing publish marks its span as an error and still throws', async () => {
    exporter.reset();
    const failing = new (class extends RootContextBus {
      override async publish(): Promise<void> {
        throw new Error('down');
      }
    })();
    await expect(tracedBus(failing).publish({ topic: 'x', key: 'k', value: new Uint8Array() })).rejects.toThrow('down');
    expect(exporter.getFinishedSpans().find((s) => s.name === 'publish x')?.status.code).toBe(2);
  });
});
