import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Link } from '@opentelemetry/api';
import type { Bus, BusHandler, BusMessage, BusSubscription, SubscribeOptions } from '@a2a-inbound/ports';

const tracer = trace.getTracer('@a2a-inbound/telemetry');

const getter = {
  keys: (carrier: Readonly<Record<string, string>>) => Object.keys(carrier),
  get: (carrier: Readonly<Record<string, string>>, key: string) => carrier[key],
};

/**
 * The one place where trace context crosses the bus: `publish` runs in a PRODUCER span and injects the
 * W3C `traceparent`/`tracestate` into the message headers; each delivery runs its handler in a CONSUMER
 * span whose parent is the context extracted from those headers (and which links to the producer span),
 * never the context the consumer happened to be in. With no SDK registered every span is a no-op and no
 * header is added.
 */
export function tracedBus(inner: Bus): Bus {
  return {
    publish(m: BusMessage): Promise<void> {
      return tracer.startActiveSpan(
        `publish ${m.topic}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            'messaging.system': 'a2a-bus',
            'messaging.operation.type': 'send',
            'messaging.destination.name': m.topic,
          },
        },
        async (span) => {
          try {
            const carrier: Record<string, string> = {};
            propagation.inject(context.active(), carrier);
            const message = Object.keys(carrier).length > 0 ? { ...m, headers: { ...m.headers, ...carrier } } : m;
            await inner.publish(message);
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
            throw err;
          } finally {
            span.end();
          }
        },
      );
    },
    subscribe(topic: string, group: string, handler: BusHandler, options?: SubscribeOptions): Promise<BusSubscription> {
      return inner.subscribe(
        topic,
        group,
        (m) => {
          const parent = propagation.extract(ROOT_CONTEXT, m.headers ?? {}, getter);
          const producer = trace.getSpanContext(parent);
          const links: Link[] = producer && trace.isSpanContextValid(producer) ? [{ context: producer }] : [];
          return tracer.startActiveSpan(
            `process ${topic}`,
            {
              kind: SpanKind.CONSUMER,
              links,
              attributes: {
                'messaging.system': 'a2a-bus',
                'messaging.operation.type': 'process',
                'messaging.destination.name': topic,
                'messaging.consumer.group.name': group,
              },
            },
            parent,
            async (span) => {
              try {
                await handler(m);
              } catch (err) {
                span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
                throw err;
              } finally {
                span.end();
              }
            },
          );
        },
        options,
      );
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
