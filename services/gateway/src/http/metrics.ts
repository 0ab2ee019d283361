import type { RequestHandler } from 'express';
import { a2aMeter } from '@a2a-inbound/telemetry';
import type { ProtocolVersion } from '../protocol/cards';
import type { SseWriter } from './sse';

/** What the A2A handler records on `res.locals` for the request metrics (set once the request is parsed). */
export interface A2aMetricLocals {
  a2aMethod?: string;
  a2aAgent?: string;
  /** The version the request was answered in, when the path does not say (`POST /agents/{id}/a2a`). */
  a2aVersion?: ProtocolVersion;
  /** The AppError code of a JSON-RPC error answer (errors.ts). */
  a2aErrorCode?: string;
}

/** The labels of `a2a_requests_total` and `a2a_request_duration_seconds`, whatever the binding. */
export interface A2aRequestLabels {
  binding: 'jsonrpc' | 'rest' | 'grpc';
  /** The protocol version served (`1.0`, `0.3.0`, `0.2.6`), `_none` when refused before it was known. */
  version: ProtocolVersion | '_none';
  method: string;
  agent: string;
  /** `ok`, or the AppError code in lower case (HTTP refusals without one: `http_<status>`). */
  outcome: string;
}

export interface A2aRequestInstruments {
  /** One answered request (a stream: once it ended), and its duration. */
  record(labels: A2aRequestLabels, seconds: number): void;
  /** A request refused by the per-agent rate limit. */
  refused(agent: string): void;
}

/**
 * The request instruments, one set for every binding: the HTTP middleware below and the gRPC binding
 * (grpc/a2a-grpc.ts) record into the same series, told apart by `binding` and `version`.
 */
export function a2aRequestInstruments(): A2aRequestInstruments {
  const meter = a2aMeter();
  const requests = meter.createCounter('a2a_requests', {
    description: 'A2A requests answered (JSON-RPC, HTTP+JSON and gRPC)',
  });
  const duration = meter.createHistogram('a2a_request_duration_seconds', {
    description: 'A2A request duration (streams: until the stream ends)',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] },
  });
  const refusals = meter.createCounter('a2a_rate_limit_refusals', {
    description: 'Requests refused by the per-agent rate limit (HTTP 429, gRPC RESOURCE_EXHAUSTED)',
  });
  return {
    record(labels, seconds) {
      requests.add(1, labels as unknown as Record<string, string>);
      duration.record(seconds, labels as unknown as Record<string, string>);
    },
    refused(agent) {
      refusals.add(1, { agent });
    },
  };
}

const A2A_PATH = /^\/agents\/([^/]+)\/a2a(?:\/|$)/;
/** The A2A 1.0 HTTP+JSON binding: its reads (GET) and deletes (DELETE) are A2A requests as much as its POSTs. */
const A2A_REST_PATH = /^\/agents\/[^/]+\/a2a\/v1\/rest(?:\/|$)/;
/** The version a path names (`/a2a/v1`, `/a2a/v0.3`, `/a2a/v0.2`); `/a2a` alone is the agent's default. */
const A2A_VERSION_PATH = /^\/agents\/[^/]+\/a2a\/(v1|v0\.3|v0\.2)(?:\/|$)/;
const PATH_VERSIONS: Readonly<Record<string, ProtocolVersion>> = { v1: '1.0', 'v0.3': '0.3.0', 'v0.2': '0.2.6' };

/** Whether a request is an A2A request: a POST to any A2A endpoint, or a GET/DELETE of the HTTP+JSON binding. */
const isA2aRequest = (method: string, path: string): boolean =>
  method === 'POST' || ((method === 'GET' || method === 'DELETE') && A2A_REST_PATH.test(path));

/**
 * A2A request metrics of the HTTP bindings (no-ops unless metrics are on, packages/telemetry):
 * `a2a_requests_total` and `a2a_request_duration_seconds` by binding (`jsonrpc`, `rest`), version, A2A method
 * (JSON-RPC's, or the 1.0 operation), agent and outcome (`ok` or the error code), rate-limit refusals by agent,
 * and the open SSE streams. Label values are bounded: the method is one of the known methods or `_OTHER`
 * (a2a-router.ts), the version one the path names or the request was answered in, the agent is set only for
 * requests that reached a known agent (authenticated), anything else is `_unknown` / `_none`.
 */
export function requestMetrics(streams: ReadonlySet<SseWriter>): RequestHandler {
  const instruments = a2aRequestInstruments();
  a2aMeter()
    .createObservableUpDownCounter('a2a_sse_streams_open', { description: 'SSE streams open on this gateway' })
    .addCallback((r) => r.observe(streams.size));
  return (req, res, next) => {
    const match = A2A_PATH.exec(req.path);
    if (!match || !isA2aRequest(req.method, req.path)) {
      next();
      return;
    }
    const start = process.hrtime.bigint();
    const path = req.path; // taken now: mounted routers rewrite req.path
    res.once('close', () => {
      const locals = res.locals as A2aMetricLocals;
      const pathAgent = decodeURIComponent(match[1] ?? '');
      // A 429 comes after the key and the agent were checked: the path names a real agent.
      const agent = locals.a2aAgent ?? (res.statusCode === 429 ? pathAgent : '_unknown');
      if (res.statusCode === 429) instruments.refused(agent);
      const outcome = locals.a2aErrorCode
        ? locals.a2aErrorCode.toLowerCase()
        : res.statusCode < 400
          ? 'ok'
          : `http_${res.statusCode}`;
      const pathVersion = A2A_VERSION_PATH.exec(path)?.[1];
      const labels: A2aRequestLabels = {
        binding: A2A_REST_PATH.test(path) ? 'rest' : 'jsonrpc',
        version: (pathVersion ? PATH_VERSIONS[pathVersion] : undefined) ?? locals.a2aVersion ?? '_none',
        method: locals.a2aMethod ?? '_none',
        agent,
        outcome,
      };
      instruments.record(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
