import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index';

function captured(): { lines: () => Record<string, unknown>[]; text: () => string; stream: Writable } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('logger redaction', () => {
  it('never writes push-config tokens or credentials, wherever the config sits in the logged object', () => {
    const out = captured();
    const log = createLogger({ service: 'test', destination: out.stream });
    const config = {
      id: 'cfg-1',
      url: 'https://example.com/hook',
      token: 'push-token-1',
      authentication: { schemes: ['Bearer'], credentials: 'cred-1' },
    };
    log.info({ taskId: 't1', pushNotificationConfig: config }, 'set');
    log.info(
      {
        params: {
          taskId: 't1',
          pushNotificationConfig: {
            ...config,
            token: 'push-token-2',
            authentication: { schemes: ['Bearer'], credentials: 'cred-2' },
          },
        },
      },
      'request',
    );
    log.info({ req: { params: { pushNotificationConfig: { ...config, token: 'push-token-3' } } } }, 'nested');
    log.info({ configs: [{ ...config, token: 'push-token-4' }] }, 'list');
    const text = out.text();
    for (const secret of ['push-token-1', 'push-token-2', 'push-token-3', 'push-token-4', 'cred-1', 'cred-2'])
      expect(text).not.toContain(secret);
    const [first] = out.lines();
    // What an operator needs stays readable.
    expect(first).toMatchObject({
      service: 'test',
      taskId: 't1',
      pushNotificationConfig: { id: 'cfg-1', url: 'https://example.com/hook', token: '[redacted]' },
    });
  });

  it('redacts authorization headers and key fields', () => {
    const out = captured();
    const log = createLogger({ service: 'test', destination: out.stream });
    log.info({ headers: { authorization: 'Bearer sk-live-1' }, key: 'sk-live-2', apiKey: 'sk-live-3' }, 'x');
    expect(out.text()).not.toMatch(/sk-live-/);
  });
});
