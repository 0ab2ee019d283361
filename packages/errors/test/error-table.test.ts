import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, ERROR_TABLE, jsonRpcHttpStatus, toJsonRpcError } from '../src/index';

describe('error table', () => {
  it('pins the A2A JSON-RPC codes of the spec', () => {
    expect(ERROR_TABLE.PARSE_ERROR.jsonRpc).toBe(-32700);
    expect(ERROR_TABLE.INVALID_REQUEST.jsonRpc).toBe(-32600);
    expect(ERROR_TABLE.METHOD_NOT_FOUND.jsonRpc).toBe(-32601);
    expect(ERROR_TABLE.INVALID_PARAMS.jsonRpc).toBe(-32602);
    expect(ERROR_TABLE.INTERNAL.jsonRpc).toBe(-32603);
    expect(ERROR_TABLE.INSUFFICIENT_CREDITS.jsonRpc).toBe(-32603);
    expect(ERROR_TABLE.TASK_NOT_FOUND.jsonRpc).toBe(-32001);
    expect(ERROR_TABLE.TASK_NOT_CANCELABLE.jsonRpc).toBe(-32002);
    expect(ERROR_TABLE.PUSH_NOT_SUPPORTED.jsonRpc).toBe(-32003);
    expect(ERROR_TABLE.UNSUPPORTED_OPERATION.jsonRpc).toBe(-32004);
    expect(ERROR_TABLE.CONTENT_TYPE_NOT_SUPPORTED.jsonRpc).toBe(-32005);
    expect(ERROR_TABLE.EXTENDED_CARD_NOT_CONFIGURED.jsonRpc).toBe(-32007);
  });

  it('keeps our own codes out of the A2A range and inside -32050..-32099', () => {
    const a2a = new Set([
      -32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007,
    ]);
    for (const code of ERROR_CODES) {
      const j = ERROR_TABLE[code].jsonRpc;
      if (!a2a.has(j)) expect(j <= -32050 && j >= -32099, `${code} → ${j}`).toBe(true);
    }
  });

  it('answers HTTP 200 for JSON-RPC errors except the HTTP-level refusals', () => {
    expect(jsonRpcHttpStatus(new AppError('TASK_NOT_FOUND', 'x'))).toBe(200);
    expect(jsonRpcHttpStatus(new AppError('UNAUTHENTICATED', 'x'))).toBe(401);
    expect(jsonRpcHttpStatus(new AppError('PERMISSION_DENIED', 'x'))).toBe(403);
    expect(jsonRpcHttpStatus(new AppError('A2A_NOT_ENABLED', 'x'))).toBe(404);
    expect(jsonRpcHttpStatus(new AppError('RATE_LIMITED', 'x'))).toBe(429);
  });

  it('never puts the message of an unknown error on the wire', () => {
    const wire = toJsonRpcError(new Error('connection string mongodb://user:secret@db'));
    expect(wire).toEqual({ code: -32603, message: 'Internal error', data: { code: 'INTERNAL' } });
  });

  it('refuses an overloaded server with its own code, not an internal error', () => {
    const busy = new AppError('OVERLOADED', 'Server busy: too many open streams; retry shortly', {
      details: { retryAfterSeconds: 1 },
    });
    expect(toJsonRpcError(busy)).toEqual({
      code: -32056,
      message: 'Server busy: too many open streams; retry shortly',
      data: { code: 'OVERLOADED', retryAfterSeconds: 1 },
    });
    expect(jsonRpcHttpStatus(new AppError('OVERLOADED', 'x'))).toBe(200);
  });

  it('carries INSUFFICIENT_CREDITS in data.code', () => {
    expect(toJsonRpcError(new AppError('INSUFFICIENT_CREDITS', 'Insufficient credits')).data?.code).toBe(
      'INSUFFICIENT_CREDITS',
    );
  });
});
