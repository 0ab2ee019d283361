// A child process of test/e2e/embedded-durable.test.ts: the durable embedded mode as embedded/src/main.ts opens
// it (data-directory lock, LMDB engines with the task-update outbox, sole owner), plus the webhooks egress test
// seams main.ts never has: *.public.example is public at registration and 127.0.0.1 (the test's receiver) at
// delivery, and the receiver's CA (HARNESS_CA_FILE) is trusted. Prints one JSON line when it serves.
import { readFileSync } from 'node:fs';
import { createLogger } from '@a2a-inbound/logger';
import { isPublicAddress } from '@a2a-inbound/runtime';
import { loadEmbeddedConfig, openEmbeddedEngines, startSystem } from '@a2a-inbound/embedded';

async function main(): Promise<void> {
  const log = createLogger({ service: 'durable-push-harness', level: process.env.LOG_LEVEL ?? 'warn' });
  const config = loadEmbeddedConfig({ DATA_DIR: process.env.DATA_DIR }, process.cwd());
  const { engines, env } = await openEmbeddedEngines(config, log, process.env);
  const lookup =
    (answer: string) =>
    async (host: string): Promise<string[]> => {
      await Promise.resolve();
      if (host.endsWith('.public.example')) return [answer];
      throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    };
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1', ...env },
    engines,
    log,
    soleOwner: true,
    resolver: lookup('93.184.216.34'),
    webhookEgress: {
      isAllowed: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
      resolve: lookup('127.0.0.1'),
      ca: readFileSync(process.env.HARNESS_CA_FILE!, 'utf8'),
    },
  });
  process.stdout.write(
    `${JSON.stringify({ baseUrl: system.baseUrl, credentials: system.tasks.seed?.credentials ?? null })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
