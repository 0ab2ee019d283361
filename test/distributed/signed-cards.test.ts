import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sut } from '@a2a-inbound/testing';
import { http } from '../management/helpers';
import { sdkVerifier, verifyDocument, type Signed } from '../support/card-signatures';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

/**
 * Signed agent cards across processes (ADR 0034): the tasks process holds the sealed keys and signs over mutual
 * TLS, two gateways serve the same deployment's cards, and a rotation made through one gateway reaches the
 * other at once (the shared cache entry of the key set is deleted by the tasks service).
 */
describe.runIf(engineUrlsSet)('signed agent cards (distributed, mutual TLS)', () => {
  let cluster: Cluster;
  let sut: Sut;

  beforeAll(async () => {
    ({ cluster, sut } = await startDistributed({
      mtls: true,
      env: { SECRETS_KEY: Buffer.alloc(32, 5).toString('base64') },
    }));
  }, 180_000);
  afterAll(async () => cluster?.stopAll(), 120_000);

  const cardFrom = async (base: string): Promise<Signed> => {
    const r = await http(base, 'GET', '/agents/demo-echo/.well-known/agent-card.json');
    expect(r.status).toBe(200);
    return r.body as Signed;
  };

  it('both gateways serve cards signed with the one deployment key; a rotation through one reaches the other', async () => {
    const other = sut.otherBaseUrls[0] ?? sut.baseUrl;
    const kid = (await verifyDocument(await cardFrom(sut.baseUrl))).kid;
    expect((await verifyDocument(await cardFrom(other))).kid).toBe(kid);
    await expect(sdkVerifier((await cardFrom(other)) as never)).resolves.toBeUndefined();

    const admin = cluster.credentials().adminToken;
    const rotated = await http(sut.baseUrl, 'POST', '/api/v1/deployments/demo-deployment/card-signing-keys/rotate', {
      token: admin,
    });
    expect(rotated.status).toBe(200);
    const fresh = (rotated.body.keys as { kid: string }[])[0]!.kid;
    expect(fresh).not.toBe(kid);
    expect((await verifyDocument(await cardFrom(other))).kid).toBe(fresh);
    const jwks = await http(other, 'GET', '/deployments/demo-deployment/.well-known/jwks.json');
    expect((jwks.body.keys as { kid: string }[]).map((k) => k.kid)).toEqual([fresh, kid]);
  });
});
