import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineUrlsSet, startDistributed } from './cluster';

/**
 * scripts/cluster.mjs counts a process ready only once it logged that it listens on its drawn port (review 22
 * #6): another process already listening there answers the readiness probe at once, and the cluster was wired to
 * that process while its own child died of EADDRINUSE.
 */
describe.runIf(engineUrlsSet)('cluster start-up beside another listener on the drawn port', () => {
  let other: Server;
  let port = 0;
  beforeAll(async () => {
    other = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    port = (other.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

  it("a gateway port answered by another process: the start fails with the child's EADDRINUSE, never wired to it", async () => {
    const started = startDistributed({ gateways: 1, runners: 0, gatewayPorts: [port] });
    const outcome = await started.then(
      async ({ cluster }) => {
        await cluster.stopAll();
        return `wired to ${cluster.gateways.join(', ')}`;
      },
      (err: unknown) => String(err),
    );
    expect(outcome).toMatch(/gateway-1 exited[\s\S]*EADDRINUSE/);
  }, 300_000);
});
