import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import { isObject, LIMITS } from '@a2a-inbound/a2a-wire';

// The send rules are shared with the tasks service's team callers (`@a2a-inbound/a2a-wire`, send.ts).
export {
  checkFileUris,
  historyLengthOf,
  isAcceptedMimeType,
  isObject,
  LIMITS,
  validateSendParams,
  type DecodedFile,
  type ValidatedSend,
} from '@a2a-inbound/a2a-wire';

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: string | number | null;
  method: string;
  params: Record<string, unknown>;
}

/** Depth of a parsed JSON value, computed iteratively (no recursion on hostile input). */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
    }
  }
  return false;
}

/** The methods answered with Server-Sent Events (refusals included: one error frame). */
export const STREAMING_METHODS: ReadonlySet<string> = new Set(['message/stream', 'tasks/resubscribe']);

/**
 * The JSON-RPC 2.0 envelope; throws INVALID_REQUEST (-32600) with the id when it can be read.
 *
 * A request without `id` (a JSON-RPC notification) is checked like any other (method -32601, params -32602)
 * and, when valid, executed and answered with `id: null`, as the official A2A SDK servers do: the spec's
 * envelope requires only `jsonrpc` and `method`, and its answer to every request is a JSON-RPC response
 * (HTTP 200), which is the only way an HTTP caller learns the task it started and was charged for.
 */
export function parseEnvelope(body: unknown): JsonRpcRequest {
  if (Array.isArray(body)) throw new AppError('INVALID_REQUEST', 'Batch requests are not supported');
  if (!isObject(body)) throw new AppError('INVALID_REQUEST', 'The request must be a JSON object');
  const id = body.id === undefined ? null : body.id;
  if (body.jsonrpc !== '2.0') throw new AppError('INVALID_REQUEST', 'jsonrpc must be "2.0"');
  if (typeof body.method !== 'string' || body.method.length === 0)
    throw new AppError('INVALID_REQUEST', 'method is required');
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) || id === null)) {
    throw new AppError('INVALID_REQUEST', 'id must be a string, a number or null');
  }
  if (typeof id === 'string' && id.length > LIMITS.maxIdChars) throw new AppError('INVALID_REQUEST', 'id is too long');
  if (body.params !== undefined && !isObject(body.params)) throw new InvalidParamsError('params must be an object');
  // Named params have names (the A2A SDK servers refuse an empty one too).
  if (body.params !== undefined && Object.prototype.hasOwnProperty.call(body.params, ''))
    throw new InvalidParamsError('params must not have an empty member name');
  return { jsonrpc: '2.0', id, method: body.method, params: body.params ?? {} };
}

/** Reads the id of a body for an error answer, whatever else is wrong with it. */
export function idOf(body: unknown): string | number | null {
  if (isObject(body)) {
    const id = body.id;
    if (typeof id === 'string' && id.length <= LIMITS.maxIdChars) return id;
    if (typeof id === 'number' && Number.isFinite(id)) return id;
  }
  return null;
}

export function taskIdParam(params: Record<string, unknown>, field = 'id'): string {
  const v = params[field];
  if (typeof v !== 'string' || v.length === 0) throw new InvalidParamsError(`${field} is required`);
  if (v.length > LIMITS.maxIdChars) throw new InvalidParamsError(`${field} is too long`);
  return v;
}
