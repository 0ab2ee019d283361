import { describe, expect, it } from 'vitest';
import { AppError, ERROR_TABLE, GrpcStatus } from '@a2a-inbound/errors';
import { toV1JsonRpcError, toV1RestError, V1_ERROR_TABLE } from '../../src/protocol/v1/errors';
import { negotiateV1 } from '../../src/protocol/v1/handler';
import { sendParamsFromV1, streamResponseOf, taskToV1 } from '@a2a-inbound/a2a-wire';
import { LIMITS, validateSendParams } from '../../src/protocol/validate';

describe('A2A 1.0 error table (spec 5.4)', () => {
  it('pins the A2A errors: JSON-RPC code, gRPC status, HTTP status, ErrorInfo reason', () => {
    const pinned = (code: keyof typeof V1_ERROR_TABLE) => {
      const m = V1_ERROR_TABLE[code];
      return [m.jsonRpc, m.grpc, m.http, m.reason];
    };
    expect(pinned('TASK_NOT_FOUND')).toEqual([-32001, GrpcStatus.NOT_FOUND, 404, 'TASK_NOT_FOUND']);
    expect(pinned('TASK_NOT_CANCELABLE')).toEqual([-32002, GrpcStatus.FAILED_PRECONDITION, 400, 'TASK_NOT_CANCELABLE']);
    expect(pinned('PUSH_NOT_SUPPORTED')).toEqual([
      -32003,
      GrpcStatus.FAILED_PRECONDITION,
      400,
      'PUSH_NOTIFICATION_NOT_SUPPORTED',
    ]);
    expect(pinned('UNSUPPORTED_OPERATION')).toEqual([
      -32004,
      GrpcStatus.FAILED_PRECONDITION,
      400,
      'UNSUPPORTED_OPERATION',
    ]);
    expect(pinned('CONTENT_TYPE_NOT_SUPPORTED')).toEqual([
      -32005,
      GrpcStatus.INVALID_ARGUMENT,
      400,
      'CONTENT_TYPE_NOT_SUPPORTED',
    ]);
    expect(pinned('INVALID_AGENT_RESPONSE')).toEqual([-32006, GrpcStatus.INTERNAL, 500, 'INVALID_AGENT_RESPONSE']);
    expect(pinned('EXTENDED_CARD_NOT_CONFIGURED')).toEqual([
      -32007,
      GrpcStatus.FAILED_PRECONDITION,
      400,
      'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    ]);
    expect(pinned('EXTENSION_SUPPORT_REQUIRED')).toEqual([
      -32008,
      GrpcStatus.FAILED_PRECONDITION,
      400,
      'EXTENSION_SUPPORT_REQUIRED',
    ]);
    expect(pinned('VERSION_NOT_SUPPORTED')).toEqual([
      -32009,
      GrpcStatus.FAILED_PRECONDITION,
      400,
      'VERSION_NOT_SUPPORTED',
    ]);
  });

  it('leaves the 0.3 table as it was: VersionNotSupported is -32004 there', () => {
    expect(ERROR_TABLE.VERSION_NOT_SUPPORTED.jsonRpc).toBe(-32004);
    expect(ERROR_TABLE.TASK_NOT_CANCELABLE.http).toBe(409);
  });

  it('answers ErrorInfo details; an unknown error keeps its message off the wire', () => {
    expect(toV1JsonRpcError(new AppError('TASK_NOT_FOUND', 'Task not found', { details: { taskId: 't1' } }))).toEqual({
      code: -32001,
      message: 'Task not found',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't1' },
        },
      ],
    });
    const internal = toV1RestError(new Error('mongodb://user:secret@db'));
    expect(internal.status).toBe(500);
    expect(JSON.stringify(internal.body)).not.toContain('secret');
    expect(internal.body).toMatchObject({ error: { code: 500, status: 'INTERNAL', message: 'Internal error' } });
  });
});

describe('A2A 1.0 version negotiation (spec 3.6)', () => {
  it('serves 1.0 (patch ignored); empty means 0.3, which a 1.0 interface refuses', () => {
    const all = { a2aVersions: [] };
    expect(negotiateV1('1.0', all)).toBe('1.0');
    expect(negotiateV1(' 1.0.1 ', all)).toBe('1.0');
    for (const v of [undefined, '', '0.3', '1.1', '2.0', 'x'])
      expect(() => negotiateV1(v, all)).toThrow(expect.objectContaining({ code: 'VERSION_NOT_SUPPORTED' }));
  });

  it('refuses 1.0 for an agent whose a2aVersions setting turned it off', () => {
    expect(negotiateV1('1.0', { a2aVersions: ['0.3.0', '1.0'] })).toBe('1.0');
    expect(() => negotiateV1('1.0', { a2aVersions: ['0.3.0', '0.2.6'] })).toThrow(
      expect.objectContaining({ code: 'VERSION_NOT_SUPPORTED' }),
    );
  });
});

const sendV1 = (p: Record<string, unknown>): Record<string, unknown> => sendParamsFromV1(p, LIMITS);

describe('A2A 1.0 wire mapping', () => {
  it('member-based parts in, the send validator applies its rules', () => {
    const v = validateSendParams(
      sendV1({
        message: {
          role: 'ROLE_USER',
          messageId: 'm1',
          parts: [
            { text: 'hi' },
            { data: { a: 1 } },
            { url: 'https://example.com/f.pdf', mediaType: 'application/pdf', filename: 'f.pdf' },
            { raw: Buffer.from('abc').toString('base64'), mediaType: 'text/plain' },
          ],
        },
        configuration: { returnImmediately: true, historyLength: 2 },
      }),
    );
    expect(v.blocking).toBe(false);
    expect(v.historyLength).toBe(2);
    expect(v.files).toHaveLength(1);
    expect(v.message.parts.map((p) => p.kind)).toEqual(['text', 'data', 'file', 'file']);
    expect(() => sendV1({ message: { role: 'user', messageId: 'm', parts: [] } })).toThrow(/ROLE_USER/);
    expect(() => sendV1({ message: { role: 'ROLE_USER', messageId: 'm', parts: [{ text: 'a', data: {} }] } })).toThrow(
      /exactly one/,
    );
  });

  it('tasks and stream events out: SCREAMING_SNAKE enums, no kind, no final, ISO timestamps with ms', () => {
    const task = {
      kind: 'task',
      id: 't',
      contextId: 'c',
      status: { state: 'input-required', timestamp: '2026-01-02T03:04:05Z' },
      history: [
        {
          kind: 'message',
          role: 'agent',
          messageId: 'm',
          parts: [{ kind: 'file', file: { uri: 'https://x/y', mimeType: 'image/png' } }],
        },
      ],
    };
    expect(taskToV1(task)).toEqual({
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-02T03:04:05.000Z' },
      history: [{ messageId: 'm', role: 'ROLE_AGENT', parts: [{ url: 'https://x/y', mediaType: 'image/png' }] }],
    });
    expect(
      streamResponseOf({
        kind: 'status-update',
        taskId: 't',
        contextId: 'c',
        final: true,
        status: { state: 'completed' },
      }),
    ).toEqual({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('timestamps: the stored form passes as it is; any other is what Date prints, impossible days rolled over', () => {
    const at = (timestamp: unknown) =>
      (taskToV1({ id: 't', contextId: 'c', status: { state: 'working', timestamp } }).status as { timestamp?: string })
        .timestamp;
    expect(at('2026-11-28T05:55:28.261Z')).toBe('2026-11-28T05:55:28.261Z');
    expect(at('2026-02-28T23:59:59.999Z')).toBe('2026-02-28T23:59:59.999Z');
    // Not the fast path's form: parsed and printed, as before it existed.
    expect(at('2026-02-30T00:00:00.000Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(at('2026-12-01T24:00:00.000Z')).toBe('2026-12-02T00:00:00.000Z');
    expect(at('2026-11-28T05:55:28.2619Z')).toBe('2026-11-28T05:55:28.261Z');
    expect(at('2026-11-28T07:55:28.261+02:00')).toBe('2026-11-28T05:55:28.261Z');
    expect(at(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(at('2026-13-01T00:00:00.000Z')).toBeUndefined();
    expect(at('not a time')).toBeUndefined();
  });
});
