import { createPublicKey, verify } from 'node:crypto';
import { SecretBox } from '@a2a-inbound/agent-definitions';
import { InMemoryCache, InMemoryDocumentStore, InMemoryRateLimiter } from '@a2a-inbound/ports';
import { describe, expect, it } from 'vitest';
import { runTasksCli } from '../../src/cli-run';
import type { ControlPlane } from '../../src/domain/control-plane';
import { tasksAuthPolicy } from '../../src/transport/grpc-auth';
import { CardKeys, cardKeysCacheKey, jwkThumbprint, type CardKeysDoc } from '../../src/domain/card-keys';

const DAY = 24 * 3_600_000;
const JKU = 'https://gw.example/deployments/dep-1/.well-known/jwks.json';

class TestClock {
  t = 1_700_000_000_000;
  now(): number {
    return this.t;
  }
}

/** `null`: no SECRETS_KEY on this deployment. */
async function setup(
  box: SecretBox | null = SecretBox.fromBase64(Buffer.alloc(32, 7).toString('base64')),
  store = new InMemoryDocumentStore(),
) {
  const cache = new InMemoryCache();
  const clock = new TestClock();
  const keys = await CardKeys.open(store, { box: box ?? undefined, cache, clock, retentionMs: 7 * DAY });
  const raw = async () =>
    (await (await store.collection<CardKeysDoc>({ name: 'card_signing_keys' })).get('dep-1'))?.doc;
  return { store, cache, clock, keys, raw, box };
}

/** Verifies a JWS (detached payload) against a published JWK with node's own crypto. */
function verifies(sig: { protected: string; signature: string }, payload: string, jwk: object): boolean {
  const input = `${sig.protected}.${Buffer.from(payload).toString('base64url')}`;
  return verify(
    'sha256',
    Buffer.from(input),
    { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(sig.signature, 'base64url'),
  );
}

describe('CardKeys (agent-card signing keys per deployment, ADR 0034)', () => {
  it('creates an ES256 key on first use, seals its private part, signs with {alg, typ, kid, jku}', async () => {
    const { keys, raw } = await setup();
    const [k] = await keys.published('dep-1');
    expect(k).toMatchObject({ retiredAtMs: 0, publishedUntilMs: 0 });
    expect(k!.publicJwk).toEqual({ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String) });
    expect(k!.publicJwk).not.toHaveProperty('d');
    expect(k!.kid).toBe(jwkThumbprint(k!.publicJwk));
    const stored = JSON.stringify(await raw());
    expect(stored).not.toContain('PRIVATE KEY');
    expect(stored).not.toContain('"d"');

    const r = await keys.sign('dep-1', JKU, ['{"a":1}', '{"b":2}']);
    expect(r.kid).toBe(k!.kid);
    expect(r.signatures).toHaveLength(2);
    const header = JSON.parse(Buffer.from(r.signatures[0]!.protected, 'base64url').toString('utf8')) as unknown;
    expect(header).toEqual({ alg: 'ES256', typ: 'JOSE', kid: k!.kid, jku: JKU });
    expect(verifies(r.signatures[0]!, '{"a":1}', k!.publicJwk)).toBe(true);
    expect(verifies(r.signatures[1]!, '{"b":2}', k!.publicJwk)).toBe(true);
    expect(verifies(r.signatures[0]!, '{"a":2}', k!.publicJwk)).toBe(false);
    // Another deployment has its own key.
    expect((await keys.published('dep-2'))[0]!.kid).not.toBe(k!.kid);
  });

  it('rotation: the new key signs, the old stays published for the retention, then is dropped', async () => {
    const { keys, cache, clock } = await setup();
    const [old] = await keys.published('dep-1');
    await cache.set(cardKeysCacheKey('dep-1'), 'stale', 60_000);
    clock.t += 1_000;
    const after = await keys.rotate('dep-1');
    expect(await cache.get(cardKeysCacheKey('dep-1'))).toBeUndefined();
    expect(after.map((k) => k.kid)).toEqual([expect.any(String), old!.kid]);
    const [fresh, retired] = after;
    expect(fresh!.kid).not.toBe(old!.kid);
    expect(retired).toMatchObject({ retiredAtMs: clock.t, publishedUntilMs: clock.t + 7 * DAY });
    const r = await keys.sign('dep-1', JKU, ['{}']);
    expect(r.kid).toBe(fresh!.kid);
    expect(verifies(r.signatures[0]!, '{}', fresh!.publicJwk)).toBe(true);

    clock.t += 7 * DAY + 1;
    expect((await keys.published('dep-1')).map((k) => k.kid)).toEqual([fresh!.kid]);
    await keys.rotate('dep-1');
    expect((await keys.published('dep-1')).map((k) => k.kid)).toEqual([expect.any(String), fresh!.kid]);
  });

  it('refuses a foreign jku, too many or too large payloads, and works only with SECRETS_KEY', async () => {
    const { keys } = await setup();
    for (const jku of [
      'https://gw.example/deployments/dep-2/.well-known/jwks.json',
      'https://evil.example/x?u=/deployments/dep-1/.well-known/jwks.json',
      'javascript:alert(1)//deployments/dep-1/.well-known/jwks.json',
      'not a url',
    ])
      await expect(keys.sign('dep-1', jku, ['{}']), jku).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(keys.sign('dep-1', JKU, [])).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(keys.sign('dep-1', JKU, ['1', '2', '3', '4', '5'])).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(keys.sign('dep-1', JKU, ['x'.repeat(256 * 1024 + 1)])).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    const keyless = (await setup(null)).keys;
    await expect(keyless.published('dep-1')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('SECRETS_KEY'),
    });
  });

  it('a secrets-key rotation reseals the signing keys; the signature stays verifiable with the same public key', async () => {
    const oldKey = Buffer.alloc(32, 1).toString('base64');
    const newKey = Buffer.alloc(32, 2).toString('base64');
    const first = await setup(
      SecretBox.fromBase64(oldKey),
      new (class extends InMemoryDocumentStore {
        override async close(): Promise<void> {} // the CLI closes its store; the test reads it afterwards
      })(),
    );
    const [k] = await first.keys.published('dep-1');
    const rotated = SecretBox.fromBase64(newKey, [oldKey]);
    const again = await CardKeys.open(first.store, {
      box: rotated,
      cache: first.cache,
      clock: first.clock,
      retentionMs: DAY,
    });
    expect(await again.resealStale()).toEqual({ resealed: 1, unopenable: [] });
    expect(await again.resealStale()).toEqual({ resealed: 0, unopenable: [] });
    // The secrets CLI reseals them too, beside the subscriptions' secrets.
    let out = '';
    const io = { stdout: (t: string) => (out += t), stderr: (t: string) => (out += t) };
    const unknown = Buffer.alloc(32, 3).toString('base64');
    expect(await runTasksCli(['reseal-secrets'], io, async () => first.store, { SECRETS_KEY: unknown })).toBe(1);
    expect(out).toContain(`resealed 0 agent-card signing key(s); 1 no configured key opens`);
    expect(out).toContain(`not opened: card signing key dep-1/${k!.kid}`);
    const onlyNew = await CardKeys.open(first.store, {
      box: SecretBox.fromBase64(newKey),
      cache: first.cache,
      clock: first.clock,
      retentionMs: DAY,
    });
    const r = await onlyNew.sign('dep-1', JKU, ['{}']);
    expect(verifies(r.signatures[0]!, '{}', k!.publicJwk)).toBe(true);
  });
});

describe('who may have cards signed (gRPC policy, ADR 0032)', () => {
  const policy = tasksAuthPolicy({} as ControlPlane, {
    clock: { now: () => 0 },
    limiter: new InMemoryRateLimiter(),
    resolver: async () => [],
  });
  const admin = { kind: 'user' as const, userId: 'u', subscriptionId: 's', role: 'admin' };
  const key = { kind: 'key' as const, keyId: 'k', subscriptionId: 's', scopes: ['a2a'] };

  it('the gateway may sign and read keys; a team credential may not, whatever its role or scope', async () => {
    for (const rpc of ['SignAgentCard', 'GetCardSigningKeys']) {
      await expect(policy.authorize(rpc, { kind: 'service', service: 'gateway' }, {})).resolves.toBeUndefined();
      await expect(policy.authorize(rpc, { kind: 'service', service: 'webhooks' }, {})).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
      });
      for (const team of [admin, key])
        await expect(policy.authorize(rpc, { kind: 'team', team }, { deploymentId: 'd' })).rejects.toMatchObject({
          code: 'PERMISSION_DENIED',
          message: expect.stringContaining('internal'),
        });
    }
    // Rotation is a management operation: a user token's, its actor verified (the role check is Management's).
    const req: { actor?: unknown } = {};
    await expect(policy.authorize('RotateCardSigningKey', { kind: 'team', team: admin }, req)).resolves.toBeUndefined();
    expect(req.actor).toEqual({ userId: 'u', role: 'admin', subscriptionId: 's' });
  });
});
