import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import type * as grpc from '@grpc/grpc-js';
import { silentLogger } from '@a2a-inbound/logger';
import type { SendOptions } from '../../src/domain/task-core';
import type { RunHistory } from '../../src/domain/run-history';
import type { TaskService } from '../../src/domain/task-service';
import { tasksGrpcService } from '../../src/transport/grpc-server';

/**
 * The gRPC `sendMessage` handler tells the send whether its caller gave up (a deadline, or the gateway's cancel
 * after it answered OVERLOADED) by the call's `cancelled` flag, read when the send is about to be charged: a
 * cancel before the handler ran counts too (no listener per call).
 */
describe('tasks gRPC sendMessage: the caller gave up', () => {
  async function send(cancelAt: 'before' | 'during' | 'never'): Promise<boolean | undefined> {
    let seen: boolean | undefined;
    const call = Object.assign(new EventEmitter(), {
      cancelled: cancelAt === 'before',
      request: {
        caller: { subscriptionId: 's', agentId: 'a', keyId: 'k', scopes: [] },
        messageJson: JSON.stringify({ kind: 'message', role: 'user', messageId: 'm1', parts: [] }),
        files: [],
      },
      sendMetadata: () => undefined,
    });
    const tasks = {
      send: async (_caller: unknown, _message: unknown, options: SendOptions) => {
        await Promise.resolve();
        if (cancelAt === 'during') {
          call.cancelled = true;
          call.emit('cancelled');
        }
        seen = options.gaveUp?.();
        return { kind: 'task', id: 't1' };
      },
    } as unknown as TaskService;
    const handler = tasksGrpcService(tasks, silentLogger(), {} as RunHistory).sendMessage;
    await new Promise<void>((resolve) =>
      handler(call as unknown as grpc.ServerUnaryCall<never, never>, () => resolve()),
    );
    return seen;
  }

  it('is told so when the call was cancelled before the handler ran or while the send waited', async () => {
    expect(await send('before')).toBe(true);
    expect(await send('during')).toBe(true);
    expect(await send('never')).toBe(false);
  });
});
