import { describe, expect, it } from 'vitest';
import { pushAuthorizationV1, pushConfigFromV1, pushPayloadV1 } from '../src';

describe('A2A 1.0 push (spec 4.3.3)', () => {
  it('the payload is a StreamResponse with the 1.0 task', () => {
    const task = { kind: 'task', id: 't', contextId: 'c', status: { state: 'completed' } };
    expect(pushPayloadV1(task)).toEqual({
      task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });

  it('Authorization is `{scheme} {credentials}` for any scheme; nothing without credentials', () => {
    expect(pushAuthorizationV1({ schemes: ['Basic'], credentials: 'dTpw' })).toBe('Basic dTpw');
    expect(pushAuthorizationV1({ schemes: ['Bearer'] })).toBeUndefined();
    expect(pushAuthorizationV1({ schemes: ['Bad scheme'], credentials: 'x' })).toBeUndefined();
    expect(pushAuthorizationV1({ schemes: ['Bearer'], credentials: 'a\r\nX-Injected: 1' })).toBeUndefined();
  });

  it('a scheme or credentials that cannot be a header value are refused when the config is created', () => {
    const base = { url: 'https://h.example/x', token: 't' };
    expect(pushConfigFromV1({ ...base, authentication: { scheme: 'Basic', credentials: 'dTpw' } })).toMatchObject({
      authentication: { schemes: ['Basic'], credentials: 'dTpw' },
    });
    expect(() => pushConfigFromV1({ ...base, authentication: { scheme: 'Bearer token' } })).toThrow(/scheme/);
    expect(() => pushConfigFromV1({ ...base, authentication: { scheme: 'Bearer', credentials: 'a\nb' } })).toThrow(
      /credentials/,
    );
  });
});
