import { generateKeyPairSync, sign } from 'node:crypto';
import canonicalize from 'canonicalize';
import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryCache } from '@a2a-inbound/ports';
import type { controlV1 } from '@a2a-inbound/proto';
import { Lookups } from '../../src/clients';
import { verifyAgentCardSignature } from '@a2a-js/sdk-v1';
import {
  CardSigner,
  cardPayloads,
  jwksOf,
  MAX_NEW_SIGNINGS_PER_MINUTE,
  type CardSigningPort,
  type PublishedKey,
} from '../../src/protocol/card-signing';

/** A control plane's signing side in miniature (real ES256), counting its calls. */
function controlPlane() {
  const make = (kid: string) => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
    const published: PublishedKey = { kid, publicJwk: JSON.stringify({ kty, crv, x, y }) };
    return { published, privateKey };
  };
  const state = { keys: [make('k1')], signCalls: 0, fail: false };
  const port: CardSigningPort = {
    keys: async () => ({ keys: state.keys.map((k) => k.published) }),
    sign: async (_d, jku, payloads) => {
      state.signCalls += 1;
      if (state.fail) throw new Error('control plane unreachable');
      const k = state.keys[0]!;
      const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JOSE', kid: k.published.kid, jku })).toString(
        'base64url',
      );
      return {
        kid: k.published.kid,
        signatures: payloads.map((p) => ({
          protected: header,
          signature: sign('sha256', Buffer.from(`${header}.${Buffer.from(p).toString('base64url')}`), {
            key: k.privateKey,
            dsaEncoding: 'ieee-p1363',
          }).toString('base64url'),
        })),
      };
    },
  };
  return { state, port, rotate: () => state.keys.unshift(make(`k${state.keys.length + 1}`)) };
}

/**
 * The generated control-plane client's shape at the wire boundary ((request, metadata, options, callback)) over
 * `cp`, and a gateway replica's signer through `Lookups` and `cache`, as app.ts wires it.
 */
function throughLookups(cp: ReturnType<typeof controlPlane>, cache = new InMemoryCache()) {
  const calls = { signAgentCard: 0 };
  const control = {
    getCardSigningKeys: (_r: unknown, _m: unknown, _o: unknown, cb: (e: null, r: unknown) => void) => {
      void cp.port.keys('dep').then((r) => cb(null, r));
      return {};
    },
    signAgentCard: (
      r: { deploymentId: string; jku: string; payloads: string[] },
      _m: unknown,
      _o: unknown,
      cb: (e: null, r: unknown) => void,
    ) => {
      calls.signAgentCard += 1;
      void cp.port.sign(r.deploymentId, r.jku, r.payloads, '', '').then((x) => cb(null, x));
      return {};
    },
  } as unknown as controlV1.ControlPlaneServiceClient;
  const lookups = new Lookups(control, cache);
  const signer = new CardSigner(
    { keys: (d) => lookups.cardKeys(d), sign: (d, jku, p, id, kid) => lookups.signCard(d, jku, p, id, kid) },
    silentLogger(),
  );
  return { calls, lookups, signer };
}

const card = (name: string) => ({
  protocolVersion: '0.3.0',
  name,
  description: 'An agent',
  url: 'https://gw.example/agents/a/a2a/v0.3',
  preferredTransport: 'JSONRPC',
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['t'], examples: [] }],
  supportedInterfaces: [
    { url: 'https://gw.example/agents/a/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
});

describe('CardSigner', () => {
  it('signs both payloads; jose + erdtman/canonicalize verify the served document, the 1.x SDK the 1.0 form', async () => {
    const cp = controlPlane();
    const signer = new CardSigner(cp.port, silentLogger());
    const signed = await signer.signed(card('A'), 'dep', 'https://gw.example');
    expect(signed.signatures).toHaveLength(2);
    const jwks = jose.createLocalJWKSet(jwksOf(cp.state.keys.map((k) => k.published)));
    const { signatures = [], ...unsigned } = signed;
    const payload = jose.base64url.encode(canonicalize(unsigned)!);
    const r = await jose.flattenedVerify({ ...signatures[1]!, payload }, jwks);
    await expect(jose.flattenedVerify({ ...signatures[0]!, payload }, jwks)).rejects.toThrow(/verification failed/);
    expect(r.protectedHeader).toEqual({
      alg: 'ES256',
      typ: 'JOSE',
      kid: 'k1',
      jku: 'https://gw.example/deployments/dep/.well-known/jwks.json',
    });
    const sdkVerify = verifyAgentCardSignature(
      async (kid) =>
        (await jose.importJWK(
          jwksOf(cp.state.keys.map((k) => k.published)).keys.find((k) => k.kid === kid)!,
          'ES256',
        )) as jose.CryptoKey,
    );
    // The official 1.x SDK verifies the first signature (the 1.0 form) on its own, not the document one.
    await expect(sdkVerify({ ...unsigned, signatures: [signatures[0]] } as never)).resolves.toBeUndefined();
    await expect(sdkVerify({ ...unsigned, name: 'Forged', signatures } as never)).rejects.toThrow(/No valid/);
    // The 1.0 form drops what 1.0 does not define and the empty values, as the SDKs do before verifying.
    expect(JSON.parse(cardPayloads(signed).v1)).not.toHaveProperty('url');
    expect(JSON.parse(cardPayloads(signed).v1).skills[0]).not.toHaveProperty('examples');
  });

  it('caches by content: one signing call per card, key and host; concurrent first requests share it', async () => {
    const cp = controlPlane();
    const signer = new CardSigner(cp.port, silentLogger());
    await Promise.all(Array.from({ length: 20 }, () => signer.signed(card('A'), 'dep', 'https://gw.example')));
    for (let i = 0; i < 100; i++) await signer.signed(card('A'), 'dep', 'https://gw.example');
    expect(cp.state.signCalls).toBe(1);
    await signer.signed(card('B'), 'dep', 'https://gw.example'); // the agent changed
    await signer.signed(card('A'), 'dep', 'https://other.example'); // another host: another jku
    expect(cp.state.signCalls).toBe(3);
    cp.rotate();
    const after = await signer.signed(card('A'), 'dep', 'https://gw.example');
    expect(cp.state.signCalls).toBe(4);
    const kid = jose.decodeProtectedHeader(after.signatures![0]!).kid;
    expect(kid).toBe('k2');
  });

  it('replicas share signatures through the cache: the same bytes (one ETag) and one signing call per card', async () => {
    const cp = controlPlane();
    const shared = new InMemoryCache();
    const [one, two] = [throughLookups(cp, shared), throughLookups(cp, shared)];
    const a = await one.signer.signed(card('A'), 'dep', 'https://gw.example');
    const b = await two.signer.signed(card('A'), 'dep', 'https://gw.example');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(one.calls.signAgentCard + two.calls.signAgentCard).toBe(1);
    await two.signer.signed(card('B'), 'dep', 'https://gw.example');
    expect(one.calls.signAgentCard + two.calls.signAgentCard).toBe(2);
  });

  it('a key set cached just before a rotation is dropped when the control plane signs with the new key (review finding 8)', async () => {
    const cp = controlPlane();
    const { lookups, signer } = throughLookups(cp);
    expect((await lookups.cardKeys('dep')).keys.map((k) => k.kid)).toEqual(['k1']); // the refill that raced
    cp.rotate(); // tasks signs with k2 now; the gateway's cached key set still says k1
    const kidOf = (c: { signatures?: { protected: string }[] }) =>
      (JSON.parse(Buffer.from(c.signatures![0]!.protected, 'base64url').toString()) as { kid: string }).kid;
    expect(kidOf(await signer.signed(card('A'), 'dep', 'https://gw.example'))).toBe('k2');
    // The JWKS a verifier fetches from `jku` lists the key that signed, at once, not after the cache's TTL.
    expect((await lookups.cardKeys('dep')).keys.map((k) => k.kid)).toEqual(['k2', 'k1']);
  });

  it('at most MAX_NEW_SIGNINGS_PER_MINUTE new signings per deployment: made-up Host headers get unsigned cards (review finding 7)', async () => {
    const cp = controlPlane();
    let now = 1_000_000;
    const signer = new CardSigner(cp.port, silentLogger(), () => now);
    const hosts = Array.from({ length: MAX_NEW_SIGNINGS_PER_MINUTE + 5 }, (_, i) => `https://h${i}.example`);
    const served = [];
    for (const h of hosts) served.push(await signer.signed(card('A'), 'dep', h));
    expect(served.filter((c) => 'signatures' in c)).toHaveLength(MAX_NEW_SIGNINGS_PER_MINUTE);
    expect(cp.state.signCalls).toBe(MAX_NEW_SIGNINGS_PER_MINUTE);
    // Cards signed before are still served signed (no new signing); another deployment has its own budget.
    expect(await signer.signed(card('A'), 'dep', hosts[0]!)).toHaveProperty('signatures');
    expect(await signer.signed(card('A'), 'other', hosts[0]!)).toHaveProperty('signatures');
    now += 60_000;
    expect(await signer.signed(card('A'), 'dep', hosts.at(-1)!)).toHaveProperty('signatures');
  });

  it('with PUBLIC_BASE_URL no Host makes a new content id: a catalog of more agents, and the same after a rotation, is signed whole (review21)', async () => {
    const cp = controlPlane();
    const base = 'https://agents.example';
    const signer = new CardSigner(cp.port, silentLogger(), () => 1_000_000, base);
    const agents = Array.from({ length: MAX_NEW_SIGNINGS_PER_MINUTE + 10 }, (_, i) => card(`agent-${i}`));
    const catalog = async () => Promise.all(agents.map((c) => signer.signed(c, 'dep', base)));
    expect((await catalog()).filter((c) => !('signatures' in c))).toEqual([]);
    cp.rotate(); // every card of the deployment gets a new content id at once
    expect((await catalog()).filter((c) => !('signatures' in c))).toEqual([]);
    expect(cp.state.signCalls).toBe(2 * agents.length);
    // A card under any other base URL (not one this gateway serves under) still counts against the budget.
    const others = Array.from({ length: MAX_NEW_SIGNINGS_PER_MINUTE + 1 }, (_, i) => `https://h${i}.example`);
    const served = await Promise.all(others.map((h) => signer.signed(card('A'), 'dep', h)));
    expect(served.filter((c) => 'signatures' in c)).toHaveLength(MAX_NEW_SIGNINGS_PER_MINUTE);
  });

  it('serves the card unsigned when signing fails, and tries again on the next request', async () => {
    const cp = controlPlane();
    const signer = new CardSigner(cp.port, silentLogger());
    cp.state.fail = true;
    expect(await signer.signed(card('A'), 'dep', 'https://gw.example')).not.toHaveProperty('signatures');
    cp.state.fail = false;
    expect(await signer.signed(card('A'), 'dep', 'https://gw.example')).toHaveProperty('signatures');
  });
});
