import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { cardUrl, manage } from '@a2a-inbound/testing';
import { selfSignedCert, startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import { describeA2aV1 } from '../e2e/a2a-v1-suite';
import { engineUrlsSet, startDistributed } from './cluster';

// A2A 1.0 on the distributed layout (two gateways, each with its gRPC port; runners, tasks, webhooks as processes
// on the real engines). Push delivery goes to an HTTPS receiver on loopback that the operator allow-lists for
// push receivers (PUSH_ALLOW_CIDRS, read by the gateways at registration and by webhooks at every delivery);
// its self-signed certificate is trusted through NODE_EXTRA_CA_CERTS, as an operator trusts a private CA.
let receiver: Receiver | undefined;
let certDir: string | undefined;
afterAll(async () => {
  await receiver?.close();
  if (certDir) await rm(certDir, { recursive: true, force: true });
});

describe.runIf(engineUrlsSet)('distributed layout', () => {
  describeA2aV1('distributed', async () => {
    const tls = await selfSignedCert();
    const rx = (receiver = await startReceiver(tls));
    certDir = await mkdtemp(join(tmpdir(), 'a2a-v1-push-'));
    const caFile = join(certDir, 'receiver-ca.pem');
    await writeFile(caFile, tls.cert);
    const { sut } = await startDistributed({
      env: {
        PUSH_ALLOW_CIDRS: '127.0.0.1/32',
        NODE_EXTRA_CA_CERTS: caFile,
        WEBHOOKS_RETRY_BASE_MS: '5',
        WEBHOOKS_RETRY_MAX_DELAY_MS: '50',
      },
    });
    await manage(sut, 'operator', 'settings.update', {
      agentId: 'demo-approval',
      settings: { pushNotificationsEnabled: true },
    });
    const card = (await (await fetch(cardUrl(sut.baseUrl, 'demo-echo'))).json()) as {
      supportedInterfaces?: { protocolBinding: string; url: string }[];
    };
    const grpcAddress = card.supportedInterfaces?.find((i) => i.protocolBinding === 'GRPC')?.url;
    if (!grpcAddress) throw new Error('the card declares no gRPC interface');
    return {
      baseUrl: sut.baseUrl,
      a2aKey: sut.a2aKey,
      grpcAddress,
      push: { hook: (path) => `https://127.0.0.1:${rx.port}${path}`, received: () => rx.received },
      close: () => sut.close(),
    };
  });
});
