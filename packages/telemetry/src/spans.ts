import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/**
 * Runs `fn` in an active INTERNAL span of `tracerName`; an error sets the span's status (its name only:
 * messages may carry user text). API only: a no-op until an SDK is registered.
 * Attributes are ids and names, never keys, tokens or message text.
 */
export function withSpan<T>(
  tracerName: string,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(tracerName).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Sets an attribute on the active span, if any (e.g. a task id learnt half-way). */
export function setActiveSpanAttribute(key: string, value: string | number | boolean): void {
  trace.getActiveSpan()?.setAttribute(key, value);
}
