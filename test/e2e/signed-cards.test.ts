import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk-v1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeHarness, http, startHarness, type Harness } from '../management/helpers';
import { sdkVerifier, verifyDocument, type Signed } from '../support/card-signatures';

// Signed agent cards end to end (A2A 1.0 section 8.4, ADR 0034) on the embedded system: the gateway serves
// every public 0.3/1.0 card signed, the deployment's JWKS at the header's `jku`, and verifiers independent of
// our code (jose with erdtman/canonicalize, and the official 1.x SDK's verifier) accept it, across a rotation.

const DEPLOYMENT = 'demo-deployment';

describe('signed agent cards (embedded system)', () => {
  let h: Harness;
  let base: string;
  const card = async (path = '/agents/demo-echo/.well-known/agent-card.json'): Promise<Signed> => {
    const r = await http(base, 'GET', path);
    expect(r.status).toBe(200);
    return r.body as Signed;
  };
  const jwksUrl = () => `${base}/deployments/${DEPLOYMENT}/.well-known/jwks.json`;

  beforeAll(async () => {
    h = await startHarness();
    base = h.base;
  });
  afterAll(async () => closeHarness(h));

  it('the 0.3/1.0 card is signed: ES256, kid and jku in the protected header, verified by jose + JCS', async () => {
    const c = await card();
    expect(c.supportedInterfaces).toBeDefined();
    expect(c.signatures).toHaveLength(2);
    const header = await verifyDocument(c);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JOSE', jku: jwksUrl(), kid: expect.any(String) });

    const jwks = await http(base, 'GET', `/deployments/${DEPLOYMENT}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('content-type')).toContain('application/jwk-set+json');
    expect(jwks.body.keys).toEqual([
      {
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: header.kid,
        use: 'sig',
        alg: 'ES256',
      },
    ]);
    expect(jwks.text).not.toMatch(/"d"|PRIVATE/);

    // A changed byte anywhere (a 0.3-only field too) fails the document signature.
    await expect(verifyDocument({ ...c, url: `${String(c.url)}x` })).rejects.toThrow(/verification failed/);
    // The default agent's card at the host root is signed the same way; the 0.2 card stays as it was.
    await verifyDocument(await card('/.well-known/agent-card.json'));
    expect(await card('/agents/demo-echo/.well-known/agent.json')).not.toHaveProperty('signatures');
  });

  it('the official @a2a-js/sdk 1.x client verifies the card it resolved (Client.getAgentCard with its verifier)', async () => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory()],
      }),
    );
    const client = await factory.createFromUrl(`${base}/agents/demo-echo/.well-known/agent-card.json`, '');
    const verified = await client.getAgentCard(undefined, sdkVerifier);
    expect(verified.name).toBe('Demo Echo Agent');
    // A tampered card is refused by the same verifier.
    await expect(sdkVerifier({ ...verified, name: 'Forged Agent' })).rejects.toThrow(/No valid signatures/);
  });

  it('catalog entries carry the same signed cards', async () => {
    const cat = await http(base, 'GET', `/deployments/${DEPLOYMENT}/.well-known/ai-catalog.json`);
    expect(cat.status).toBe(200);
    const entries = cat.body.entries as { data: Signed }[];
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) await verifyDocument(e.data);
  });

  it('rotation (admin): the new key signs, the old public key stays in the JWKS, an old card still verifies', async () => {
    const before = await card();
    const oldKid = (await verifyDocument(before)).kid;
    const api = (method: string, path: string, token: string) => http(base, method, `/api/v1${path}`, { token });
    const listed = await api('GET', `/deployments/${DEPLOYMENT}/card-signing-keys`, h.creds.operatorToken);
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toEqual([expect.objectContaining({ kid: oldKid, status: 'signing', retiredAt: null })]);
    expect(listed.text).not.toMatch(/"d"|sealed|PRIVATE/);
    expect(
      (await api('POST', `/deployments/${DEPLOYMENT}/card-signing-keys/rotate`, h.creds.operatorToken)).status,
    ).toBe(403);
    expect((await api('POST', '/deployments/nope/card-signing-keys/rotate', h.creds.adminToken)).status).toBe(404);

    const rotated = await api('POST', `/deployments/${DEPLOYMENT}/card-signing-keys/rotate`, h.creds.adminToken);
    expect(rotated.status).toBe(200);
    const [fresh, retired] = rotated.body.keys as { kid: string; status: string; publishedUntil: string }[];
    expect(fresh).toMatchObject({ status: 'signing' });
    expect(retired).toMatchObject({ kid: oldKid, status: 'retired', publishedUntil: expect.any(String) });

    const after = await card();
    expect((await verifyDocument(after)).kid).toBe(fresh!.kid);
    await expect(sdkVerifier(after as never)).resolves.toBeUndefined();
    const jwks = await http(base, 'GET', `/deployments/${DEPLOYMENT}/.well-known/jwks.json`);
    expect((jwks.body.keys as { kid: string }[]).map((k) => k.kid)).toEqual([fresh!.kid, oldKid]);
    // A client that cached the card signed before the rotation can still verify it.
    expect((await verifyDocument(before)).kid).toBe(oldKid);
    const audit = await api('GET', '/audit-events', h.creds.adminToken);
    expect(audit.body.events[0]).toMatchObject({ operation: 'RotateCardSigningKey' });
  });

  it('an agent change is re-signed at once; an unknown deployment has no JWKS', async () => {
    // Push notifications are the platform operator's setting.
    const api = (method: string, path: string, body?: unknown) =>
      http(base, method, `/api/v1${path}`, { token: h.creds.operatorToken, body });
    const changed = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/demo-echo/settings`, {
      pushNotificationsEnabled: true,
    });
    expect(changed.status).toBe(200);
    const c = await card();
    expect(c.capabilities).toMatchObject({ pushNotifications: true });
    await verifyDocument(c);
    await expect(sdkVerifier(c as never)).resolves.toBeUndefined();
    expect((await http(base, 'GET', '/deployments/nope/.well-known/jwks.json')).status).toBe(404);
  });
});
