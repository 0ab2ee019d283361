import { ERROR_CODES, ERROR_TABLE, GrpcStatus, toAppError, type AppError, type ErrorCode } from '@a2a-inbound/errors';

/**
 * The A2A 1.0 error table (spec 5.4, 9.5, 10.6, 11.6): our stable codes → the 1.0 JSON-RPC code, gRPC status,
 * HTTP status and `google.rpc.ErrorInfo` reason. The 0.3/0.2 table in `@a2a-inbound/errors` stays as it is;
 * codes 1.0 does not name keep that table's codes and statuses.
 */

export interface V1ErrorMapping {
  readonly jsonRpc: number;
  readonly grpc: number;
  readonly http: number;
  /** ErrorInfo.reason: the A2A error name in UPPER_SNAKE_CASE for A2A errors, else our code. */
  readonly reason: string;
  /** Whether the reason is an A2A-defined one (domain a2a-protocol.org) or ours. */
  readonly a2a: boolean;
}

const A2A_ERRORS: Partial<Record<ErrorCode, Omit<V1ErrorMapping, 'a2a'>>> = {
  TASK_NOT_FOUND: { jsonRpc: -32001, grpc: GrpcStatus.NOT_FOUND, http: 404, reason: 'TASK_NOT_FOUND' },
  TASK_NOT_CANCELABLE: {
    jsonRpc: -32002,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    reason: 'TASK_NOT_CANCELABLE',
  },
  PUSH_NOT_SUPPORTED: {
    jsonRpc: -32003,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  },
  UNSUPPORTED_OPERATION: {
    jsonRpc: -32004,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    reason: 'UNSUPPORTED_OPERATION',
  },
  CONTENT_TYPE_NOT_SUPPORTED: {
    jsonRpc: -32005,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 400,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
  },
  INVALID_AGENT_RESPONSE: { jsonRpc: -32006, grpc: GrpcStatus.INTERNAL, http: 500, reason: 'INVALID_AGENT_RESPONSE' },
  EXTENDED_CARD_NOT_CONFIGURED: {
    jsonRpc: -32007,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  },
  EXTENSION_SUPPORT_REQUIRED: {
    jsonRpc: -32008,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    reason: 'EXTENSION_SUPPORT_REQUIRED',
  },
  VERSION_NOT_SUPPORTED: {
    jsonRpc: -32009,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    reason: 'VERSION_NOT_SUPPORTED',
  },
};

export const V1_ERROR_TABLE: Readonly<Record<ErrorCode, V1ErrorMapping>> = Object.fromEntries(
  ERROR_CODES.map((code) => {
    const a2a = A2A_ERRORS[code];
    const base = ERROR_TABLE[code];
    return [
      code,
      a2a
        ? { ...a2a, a2a: true }
        : { jsonRpc: base.jsonRpc, grpc: base.grpc, http: base.http, reason: code, a2a: false },
    ];
  }),
) as Record<ErrorCode, V1ErrorMapping>;

const GRPC_STATUS_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(GrpcStatus).map(([name, n]) => [n, name]),
);

export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
const OUR_DOMAIN = 'a2a-inbound';

/** `google.rpc.ErrorInfo` in ProtoJSON `Any` form; metadata values are strings, as the message requires. */
export function errorInfoOf(app: AppError): Record<string, unknown> {
  const m = V1_ERROR_TABLE[app.code];
  const metadata: Record<string, string> = {};
  if (ERROR_TABLE[app.code].exposeMessage && app.details)
    for (const [k, v] of Object.entries(app.details))
      metadata[k] = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: m.reason,
    domain: m.a2a ? A2A_ERROR_DOMAIN : OUR_DOMAIN,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

/** The message a client may see: the error's own when the table allows, else the table's generic one. */
export function wireMessageOf(app: AppError): string {
  const base = ERROR_TABLE[app.code];
  return base.exposeMessage ? app.message || base.wireMessage : base.wireMessage;
}

/** The JSON-RPC `error` object of 1.0: `data` is an array of detail objects (spec 9.5). */
export function toV1JsonRpcError(err: unknown): { code: number; message: string; data: unknown[] } {
  const app = toAppError(err);
  return { code: V1_ERROR_TABLE[app.code].jsonRpc, message: wireMessageOf(app), data: [errorInfoOf(app)] };
}

/** `google.rpc.Status` as REST answers it (spec 11.6), with the HTTP status to send. */
export function toV1RestError(err: unknown): { status: number; body: Record<string, unknown> } {
  const app = toAppError(err);
  const m = V1_ERROR_TABLE[app.code];
  return {
    status: m.http,
    body: {
      error: {
        code: m.http,
        status: GRPC_STATUS_NAMES[m.grpc] ?? 'UNKNOWN',
        message: wireMessageOf(app),
        details: [errorInfoOf(app)],
      },
    },
  };
}
