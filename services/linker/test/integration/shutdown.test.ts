// On SIGTERM the linker's gRPC server lets calls in progress finish for LINKER_SHUTDOWN_GRACE_MS (deploy/k8s
// gives an ingest 45 s within the pod's terminationGracePeriodSeconds), and cuts them after it.
import { join } from 'node:path';
import { createLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, SequentialIds, systemClock } from '@a2a-inbound/ports';
import { call, grpc } from '@a2a-inbound/runtime';
import { describe, expect, it } from 'vitest';
import { diskSourceAccess, startLinkerApp } from '../../src/app';
import { linkerV1 } from '../../src/transport/proto';
import { FIXTURES } from '../unit/helpers';

const TOKEN = 'linker-shutdown-service-token-0123456789abcdef';
const caller = { subscriptionId: 'sub-a', role: 'admin', userId: 'u-a' };

/** Starts an ingest whose fetch waits for `release`, then closes the app: how does the ingest end? */
async function ingestDuringShutdown(shutdownGraceMs: number, releaseAfterMs: number) {
  const disk = diskSourceAccess([FIXTURES]);
  let fetching!: () => void;
  const fetchStarted = new Promise<void>((r) => (fetching = r));
  const app = await startLinkerApp(
    {
      store: new InMemoryDocumentStore(),
      clock: systemClock,
      log: createLogger({ service: 'linker-test', level: 'silent' }),
      ids: new SequentialIds('id'),
      access: {
        fetch: async (location) => {
          fetching();
          await new Promise((r) => setTimeout(r, releaseAfterMs));
          return disk.fetch(location);
        },
        list: (root, options) => disk.list(root, options),
      },
    },
    { allowedLocalRoots: [FIXTURES], serviceToken: TOKEN, shutdownGraceMs },
  );
  const server = await app.start();
  const client = new linkerV1.LinkerServiceClient(server.address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${TOKEN}`);
  const rpc = <Res>(method: string, req: unknown): Promise<Res> =>
    call<unknown, Res>((client as any)[method].bind(client), req, { metadata });
  try {
    const created: linkerV1.Application = await rpc('createApplication', { caller, name: 'shutdown' });
    await rpc('addSource', {
      caller,
      applicationId: created.id,
      name: 'web',
      location: { kind: { $case: 'dir', dir: join(FIXTURES, 'routing-rules', 'web') } },
    });
    const ingest = rpc<linkerV1.Version>('ingestSource', {
      caller,
      applicationId: created.id,
      sourceId: 'web',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    }).then(
      (v) => ({ status: v.status }),
      (err: unknown) => ({ error: (err as { code?: string }).code ?? String(err) }),
    );
    await fetchStarted;
    const closing = app.close();
    const result = await ingest;
    await closing;
    return result;
  } finally {
    client.close();
  }
}

describe('linker shutdown', () => {
  it("an ingest in progress completes within LINKER_SHUTDOWN_GRACE_MS, beyond the gRPC servers' default 5 s", async () => {
    expect(await ingestDuringShutdown(8_000, 5_500)).toEqual({ status: 'completed' });
  }, 30_000);

  it('an ingest that outlasts the grace is cut', async () => {
    const r = await ingestDuringShutdown(100, 1_500);
    expect(r).toHaveProperty('error');
  }, 20_000);
});
