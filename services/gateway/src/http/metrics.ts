import type { RequestHandler } from 'express';
import { a2aMeter } from '@a2a-inbound/telemetry';
import type { SseWriter } from './sse';

/** What the A2A handler records on `res.locals` for the request metrics (set once the request is parsed). */
export interface A2aMetricLocals {
  a2aMethod?: string;
  a2aAgent?: string;
  /** The AppError code of a JSON-RPC error answer (errors.ts). */
  a2aErrorCode?: string;
}

const A2A_PATH = /^\/agents\/([^/]+)\/a2a(?:\/|$)/;
/** The A2A 1.0 HTTP+JSON binding: its reads (GET) and deletes (DELETE) are A2A requests as much as its POSTs. */
const A2A_REST_PATH = /^\/agents\/[^/]+\/a2a\/v1\/rest(?:\/|$)/;

/** Whether a request is an A2A request: a POST to any A2A endpoint, or a GET/DELETE of the HTTP+JSON binding. */
const isA2aRequest = (method: string, path: string): boolean =>
  method === 'POST' || ((method === 'GET' || method === 'DELETE') && A2A_REST_PATH.test(path));

/**
 * A2A request metrics (no-ops unless metrics are on, packages/telemetry): `a2a_requests_total` and
 * `a2a_request_duration_seconds` by A2A method (JSON-RPC's, or the 1.0 operation of any binding), agent and outcome (`ok` or the error code), rate-limit
 * refusals by agent, and the open SSE streams. Label values are bounded: the method is one of the known
 * methods or `_OTHER` (a2a-router.ts), the agent is set only for requests that reached a known agent
 * (authenticated), anything else is `_unknown`.
 */
export function requestMetrics(streams: ReadonlySet<SseWriter>): RequestHandler {
  const meter = a2aMeter();
  const requests = meter.createCounter('a2a_requests', { description: 'A2A JSON-RPC requests answered' });
  const duration = meter.createHistogram('a2a_request_duration_seconds', {
    description: 'A2A JSON-RPC request duration (streams: until the stream ends)',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] },
  });
  const refusals = meter.createCounter('a2a_rate_limit_refusals', {
    description: 'Requests refused by the per-agent rate limit (HTTP 429)',
  });
  meter
    .createObservableUpDownCounter('a2a_sse_streams_open', { description: 'SSE streams open on this gateway' })
    .addCallback((r) => r.observe(streams.size));
  return (req, res, next) => {
    const match = A2A_PATH.exec(req.path);
    if (!match || !isA2aRequest(req.method, req.path)) {
      next();
      return;
    }
    const start = process.hrtime.bigint();
    res.once('close', () => {
      const locals = res.locals as A2aMetricLocals;
      const pathAgent = decodeURIComponent(match[1] ?? '');
      // A 429 comes after the key and the agent were checked: the path names a real agent.
      const agent = locals.a2aAgent ?? (res.statusCode === 429 ? pathAgent : '_unknown');
      if (res.statusCode === 429) refusals.add(1, { agent });
      const outcome = locals.a2aErrorCode
        ? locals.a2aErrorCode.toLowerCase()
        : res.statusCode < 400
          ? 'ok'
          : `http_${res.statusCode}`;
      const labels = { method: locals.a2aMethod ?? '_none', agent, outcome };
      requests.add(1, labels);
      duration.record(Number(process.hrtime.bigint() - start) / 1e9, labels);
    });
    next();
  };
}
