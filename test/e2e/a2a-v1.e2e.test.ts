import { afterAll } from 'vitest';
import { startSystem } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { isPublicAddress, type Resolver } from '@a2a-inbound/runtime';
import { manage } from '@a2a-inbound/testing';
import { selfSignedCert, startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import { describeA2aV1 } from './a2a-v1-suite';

/** Registration-time DNS: *.public.example is public; at delivery the hook resolves to the local receiver. */
const registrationResolver: Resolver = async (host) => {
  await Promise.resolve();
  if (host.endsWith('.public.example')) return ['93.184.216.34'];
  throw new Error(`getaddrinfo ENOTFOUND ${host}`);
};
const deliveryResolver: Resolver = async (host) => {
  await Promise.resolve();
  if (host === 'hook.public.example') return ['127.0.0.1'];
  throw new Error(`getaddrinfo ENOTFOUND ${host}`);
};

let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

describeA2aV1('embedded', async () => {
  const tls = await selfSignedCert();
  const rx = (receiver = await startReceiver(tls));
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1', WEBHOOKS_RETRY_BASE_MS: '5', WEBHOOKS_RETRY_MAX_DELAY_MS: '50' },
    log: silentLogger(),
    resolver: registrationResolver,
    webhookEgress: {
      isAllowed: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
      resolve: deliveryResolver,
      ca: tls.cert,
    },
  });
  const sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: system.tasks.seed!.subscriptionId };
  await manage(sut, 'operator', 'settings.update', {
    agentId: 'demo-approval',
    settings: { pushNotificationsEnabled: true },
  });
  return {
    baseUrl: system.baseUrl,
    a2aKey: system.tasks.seed!.credentials!.a2aKey,
    grpcAddress: `127.0.0.1:${system.gateway.a2aGrpcPort}`,
    push: { hook: (path) => `https://hook.public.example:${rx.port}${path}`, received: () => rx.received },
    close: () => system.close(),
  };
});
