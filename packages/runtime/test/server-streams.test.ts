import { describe, expect, it } from 'vitest';
import { tasksV1 } from '@a2a-inbound/proto';
import { grpc, serverStream, startGrpcServer, streamOf } from '../src/index';

describe('startGrpcServer close() with open server streams', () => {
  it('ends live streams at once with UNAVAILABLE (resumable) instead of holding shutdown for the grace period', async () => {
    let tailStopped = false;
    const server = await startGrpcServer(
      [
        {
          definition: tasksV1.TasksServiceService,
          implementation: {
            // A live tail: one event every 20 ms until the caller goes away.
            resubscribe: serverStream(async function* (_req: tasksV1.ResubscribeRequest, signal: AbortSignal) {
              try {
                for (let seq = 1; !signal.aborted; seq++) {
                  yield { seq, eventJson: '{}', final: false } satisfies tasksV1.TaskStreamEvent;
                  await new Promise((r) => setTimeout(r, 20));
                }
              } finally {
                tailStopped = true;
              }
            }),
          },
        },
      ],
      { host: '127.0.0.1', port: 0, isServing: () => true, graceMs: 10_000 },
    );
    const client = new tasksV1.TasksServiceClient(server.address, grpc.credentials.createInsecure());
    const seen: number[] = [];
    let failure: unknown;
    const reading = (async () => {
      try {
        for await (const e of streamOf(client.resubscribe({ taskId: 't', afterSeq: 0, snapshotFirst: false })))
          seen.push(e.seq);
      } catch (err) {
        failure = err;
      }
    })();
    while (seen.length < 3) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await server.close();
    const closeMs = Date.now() - started;
    await reading;
    client.close();
    expect(closeMs).toBeLessThan(2_000); // not the 10 s grace
    expect(failure).toMatchObject({ code: 'UNAVAILABLE' });
    expect(seen).toEqual(seen.map((_, i) => i + 1));
    while (!tailStopped && Date.now() - started < 2_000) await new Promise((r) => setTimeout(r, 10));
    expect(tailStopped).toBe(true);
  });
});
