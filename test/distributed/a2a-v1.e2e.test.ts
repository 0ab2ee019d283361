import { describe } from 'vitest';
import { cardUrl } from '@a2a-inbound/testing';
import { describeA2aV1 } from '../e2e/a2a-v1-suite';
import { engineUrlsSet, startDistributed } from './cluster';

// A2A 1.0 on the distributed layout (two gateways, each with its gRPC port; runners, tasks, webhooks as processes
// on the real engines). Push delivery needs a receiver the gateways' DNS can route to: covered by the embedded run.
describe.runIf(engineUrlsSet)('distributed layout', () => {
  describeA2aV1('distributed', async () => {
    const { sut } = await startDistributed();
    const card = (await (await fetch(cardUrl(sut.baseUrl, 'demo-echo'))).json()) as {
      supportedInterfaces?: { protocolBinding: string; url: string }[];
    };
    const grpcAddress = card.supportedInterfaces?.find((i) => i.protocolBinding === 'GRPC')?.url;
    if (!grpcAddress) throw new Error('the card declares no gRPC interface');
    return { baseUrl: sut.baseUrl, a2aKey: sut.a2aKey, grpcAddress, close: () => sut.close() };
  });
});
