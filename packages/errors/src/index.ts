/**
 * One error hierarchy and one table. Every error that crosses a boundary carries a stable `code`;
 * the table maps each code to its JSON-RPC code, gRPC status and HTTP status. Messages of unknown
 * errors never reach the wire: they become -32603 "Internal error" and the cause goes to the log.
 */

export type ErrorCode =
  | 'PARSE_ERROR'
  | 'INVALID_REQUEST'
  | 'METHOD_NOT_FOUND'
  | 'INVALID_PARAMS'
  | 'INTERNAL'
  | 'INSUFFICIENT_CREDITS'
  | 'TASK_NOT_FOUND'
  | 'TASK_NOT_CANCELABLE'
  | 'PUSH_NOT_SUPPORTED'
  | 'UNSUPPORTED_OPERATION'
  | 'CONTENT_TYPE_NOT_SUPPORTED'
  | 'INVALID_AGENT_RESPONSE'
  | 'EXTENDED_CARD_NOT_CONFIGURED'
  | 'VERSION_NOT_SUPPORTED'
  | 'EXTENSION_SUPPORT_REQUIRED'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'A2A_NOT_ENABLED'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'PAYLOAD_TOO_LARGE'
  | 'CONFLICT'
  | 'VERSION_CONFLICT'
  | 'DUPLICATE_KEY'
  | 'FAILED_PRECONDITION'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED'
  | 'OVERLOADED';

/** gRPC status codes (numeric, as @grpc/grpc-js `status`), kept here so this package has no dependency. */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface ErrorMapping {
  /** JSON-RPC error code on the A2A wire. */
  readonly jsonRpc: number;
  /** Message put on the wire (the A2A spec's names); the AppError message is used where `exposeMessage`. */
  readonly wireMessage: string;
  readonly grpc: number;
  /** HTTP status of a REST answer; JSON-RPC answers are HTTP 200 unless `httpRefusal` is set. */
  readonly http: number;
  /** The HTTP status a JSON-RPC endpoint answers with (401, 403, 404, 413, 429); otherwise 200. */
  readonly httpRefusal?: number;
  /** Whether the AppError's own message is safe to show to a client. */
  readonly exposeMessage: boolean;
}

export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorMapping>> = {
  PARSE_ERROR: {
    jsonRpc: -32700,
    wireMessage: 'Parse error',
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 400,
    exposeMessage: true,
  },
  INVALID_REQUEST: {
    jsonRpc: -32600,
    wireMessage: 'Invalid Request',
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 400,
    exposeMessage: true,
  },
  METHOD_NOT_FOUND: {
    jsonRpc: -32601,
    wireMessage: 'Method not found',
    grpc: GrpcStatus.UNIMPLEMENTED,
    http: 404,
    exposeMessage: true,
  },
  INVALID_PARAMS: {
    jsonRpc: -32602,
    wireMessage: 'Invalid params',
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 400,
    exposeMessage: true,
  },
  INTERNAL: {
    jsonRpc: -32603,
    wireMessage: 'Internal error',
    grpc: GrpcStatus.INTERNAL,
    http: 500,
    exposeMessage: false,
  },
  INSUFFICIENT_CREDITS: {
    jsonRpc: -32603,
    wireMessage: 'Insufficient credits',
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    http: 402,
    exposeMessage: true,
  },
  TASK_NOT_FOUND: {
    jsonRpc: -32001,
    wireMessage: 'Task not found',
    grpc: GrpcStatus.NOT_FOUND,
    http: 404,
    exposeMessage: true,
  },
  TASK_NOT_CANCELABLE: {
    jsonRpc: -32002,
    wireMessage: 'Task cannot be canceled',
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 409,
    exposeMessage: true,
  },
  PUSH_NOT_SUPPORTED: {
    jsonRpc: -32003,
    wireMessage: 'Push Notification is not supported',
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    exposeMessage: true,
  },
  UNSUPPORTED_OPERATION: {
    jsonRpc: -32004,
    wireMessage: 'This operation is not supported',
    grpc: GrpcStatus.UNIMPLEMENTED,
    http: 400,
    exposeMessage: true,
  },
  CONTENT_TYPE_NOT_SUPPORTED: {
    jsonRpc: -32005,
    wireMessage: 'Incompatible content types',
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 415,
    exposeMessage: true,
  },
  INVALID_AGENT_RESPONSE: {
    jsonRpc: -32006,
    wireMessage: 'Invalid agent response',
    grpc: GrpcStatus.INTERNAL,
    http: 502,
    exposeMessage: true,
  },
  EXTENDED_CARD_NOT_CONFIGURED: {
    jsonRpc: -32007,
    wireMessage: 'Authenticated Extended Card is not configured',
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 404,
    exposeMessage: true,
  },
  /** A2A 1.0's VersionNotSupportedError (-32009 in the 1.0 table); 0.3 and 0.2 have only -32004 for it. */
  VERSION_NOT_SUPPORTED: {
    jsonRpc: -32004,
    wireMessage: 'This operation is not supported',
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    exposeMessage: true,
  },
  /** A2A 1.0's ExtensionSupportRequiredError (-32008 in the 1.0 table). */
  EXTENSION_SUPPORT_REQUIRED: {
    jsonRpc: -32004,
    wireMessage: 'This operation is not supported',
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 400,
    exposeMessage: true,
  },
  UNAUTHENTICATED: {
    jsonRpc: -32050,
    wireMessage: 'Unauthorized',
    grpc: GrpcStatus.UNAUTHENTICATED,
    http: 401,
    httpRefusal: 401,
    exposeMessage: true,
  },
  PERMISSION_DENIED: {
    jsonRpc: -32051,
    wireMessage: 'Forbidden',
    grpc: GrpcStatus.PERMISSION_DENIED,
    http: 403,
    httpRefusal: 403,
    exposeMessage: true,
  },
  A2A_NOT_ENABLED: {
    jsonRpc: -32004,
    wireMessage: 'A2A is not enabled for this agent',
    grpc: GrpcStatus.NOT_FOUND,
    http: 404,
    httpRefusal: 404,
    exposeMessage: true,
  },
  NOT_FOUND: {
    jsonRpc: -32052,
    wireMessage: 'Not found',
    grpc: GrpcStatus.NOT_FOUND,
    http: 404,
    httpRefusal: 404,
    exposeMessage: true,
  },
  RATE_LIMITED: {
    jsonRpc: -32053,
    wireMessage: 'Rate limit exceeded',
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    http: 429,
    httpRefusal: 429,
    exposeMessage: true,
  },
  PAYLOAD_TOO_LARGE: {
    jsonRpc: -32600,
    wireMessage: 'Request body too large',
    grpc: GrpcStatus.INVALID_ARGUMENT,
    http: 413,
    httpRefusal: 413,
    exposeMessage: true,
  },
  CONFLICT: {
    jsonRpc: -32054,
    wireMessage: 'Conflict',
    grpc: GrpcStatus.ALREADY_EXISTS,
    http: 409,
    exposeMessage: true,
  },
  VERSION_CONFLICT: {
    jsonRpc: -32603,
    wireMessage: 'Internal error',
    grpc: GrpcStatus.ABORTED,
    http: 409,
    exposeMessage: false,
  },
  DUPLICATE_KEY: {
    jsonRpc: -32603,
    wireMessage: 'Internal error',
    grpc: GrpcStatus.ALREADY_EXISTS,
    http: 409,
    exposeMessage: false,
  },
  FAILED_PRECONDITION: {
    jsonRpc: -32055,
    wireMessage: 'Failed precondition',
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 409,
    exposeMessage: true,
  },
  UNAVAILABLE: {
    jsonRpc: -32603,
    wireMessage: 'Internal error',
    grpc: GrpcStatus.UNAVAILABLE,
    http: 503,
    exposeMessage: false,
  },
  DEADLINE_EXCEEDED: {
    jsonRpc: -32603,
    wireMessage: 'Internal error',
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    http: 504,
    exposeMessage: false,
  },
  /** A per-process capacity (open streams and blocking waits) is full: refused before anything is charged or run. */
  OVERLOADED: {
    jsonRpc: -32056,
    wireMessage: 'Server busy',
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    http: 503,
    exposeMessage: true,
  },
};

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_TABLE, value);
}

export interface AppErrorOptions {
  /** Structured, client-safe details (JSON-RPC `data`). Never secrets. */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }
}

export class InvalidParamsError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('INVALID_PARAMS', message, details ? { details } : {});
  }
}
export class TaskNotFoundError extends AppError {
  constructor(taskId: string) {
    super('TASK_NOT_FOUND', 'Task not found', { details: { taskId } });
  }
}
export class TaskNotCancelableError extends AppError {
  constructor(taskId: string, state: string) {
    super('TASK_NOT_CANCELABLE', `Task is ${state} and cannot be canceled`, { details: { taskId, state } });
  }
}
export class VersionConflictError extends AppError {
  constructor(collection: string, id: string) {
    super('VERSION_CONFLICT', `${collection}/${id} changed concurrently`);
  }
}
export class DuplicateKeyError extends AppError {
  constructor(collection: string, key: string) {
    super('DUPLICATE_KEY', `${collection}: duplicate key ${key}`);
  }
}
export class NotFoundError extends AppError {
  constructor(what: string) {
    super('NOT_FOUND', `${what} not found`);
  }
}
export class InsufficientCreditsError extends AppError {
  constructor(balance: number, cost: number) {
    super('INSUFFICIENT_CREDITS', 'Insufficient credits', { details: { balance, cost } });
  }
}

/**
 * An engine or service outage (retry for as long as it lasts): UNAVAILABLE, or a raw gRPC UNAVAILABLE /
 * DEADLINE_EXCEEDED from a client call. Bus consumers pass it as `isTransient`, so an outage never
 * dead-letters a message.
 */
export function isOutage(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'UNAVAILABLE';
  const code = (err as { code?: unknown } | null)?.code;
  return code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.DEADLINE_EXCEEDED;
}

/** Any thrown value → AppError; unknown errors become INTERNAL with the original kept as `cause`. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('INTERNAL', 'Internal error', { cause: err });
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** The JSON-RPC `error` object for an error; `data.code` always carries the stable code. */
export function toJsonRpcError(err: unknown): JsonRpcErrorObject {
  const app = toAppError(err);
  const mapping = ERROR_TABLE[app.code];
  const message = mapping.exposeMessage ? app.message || mapping.wireMessage : mapping.wireMessage;
  const data: Record<string, unknown> = { code: app.code };
  if (mapping.exposeMessage && app.details) Object.assign(data, app.details, { code: app.code });
  return { code: mapping.jsonRpc, message, data };
}

/** HTTP status a JSON-RPC endpoint answers with for this error (200 except the HTTP-level refusals). */
export function jsonRpcHttpStatus(err: unknown): number {
  return ERROR_TABLE[toAppError(err).code].httpRefusal ?? 200;
}

export function httpStatusOf(err: unknown): number {
  return ERROR_TABLE[toAppError(err).code].http;
}

/** Metadata key under which the stable code and details travel in gRPC trailers. */
export const GRPC_ERROR_CODE_KEY = 'a2a-error-code';
export const GRPC_ERROR_DETAILS_KEY = 'a2a-error-details-bin';
