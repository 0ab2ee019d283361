import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { SecretBox } from '@a2a-inbound/agent-definitions';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Cache, Clock, Collection, DocumentStore } from '@a2a-inbound/ports';
import { updateWithRetry } from '@a2a-inbound/ports';

/** One ES256 key of a deployment; the private key is a sealed PKCS#8 PEM (SecretBox), never stored in clear. */
export interface CardKeyDoc {
  kid: string;
  /** The public JWK (`kty`, `crv`, `x`, `y`), as published. */
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  sealedPrivateKey: string;
  createdAtMs: number;
  /** 0 while it signs. */
  retiredAtMs: number;
}

/** Collection `card_signing_keys`, id = deployment id: the signing key first, then the retired ones, newest first. */
export interface CardKeysDoc {
  deploymentId: string;
  keys: CardKeyDoc[];
}

/** What may be shown or published of a key: never the sealed private part. */
export interface CardKeyInfo {
  kid: string;
  publicJwk: CardKeyDoc['publicJwk'];
  createdAtMs: number;
  retiredAtMs: number;
  /** 0 while it signs. */
  publishedUntilMs: number;
}

export const MAX_CARD_PAYLOADS = 4;
export const MAX_CARD_PAYLOAD_BYTES = 256 * 1024;
const MAX_JKU_CHARS = 2_048;
/** Bounds the document: a retired key past its retention is dropped at the next rotation anyway. */
const MAX_KEYS = 20;

/** The cache entry the gateway keeps of a deployment's published keys; deleted on every rotation. */
export const cardKeysCacheKey = (deploymentId: string): string => `card-keys:${deploymentId}`;

const aad = (deploymentId: string, kid: string): string => `card-signing-key/${deploymentId}/${kid}`;

/** RFC 7638 thumbprint of an EC public JWK (its required members in lexicographic order), base64url. */
export function jwkThumbprint(jwk: CardKeyDoc['publicJwk']): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

/**
 * Agent-card signing keys per deployment (A2A 1.0 section 8.4, ADR 0034): ES256 keys created on first use,
 * the private key sealed with the secrets key like every secret and opened only here to sign; a rotation
 * makes a new key the signer and keeps the old public keys published for `retentionMs`.
 */
export class CardKeys {
  /** Opened private keys by kid: opening (AES-GCM + PEM parsing) is not repeated per signature. */
  readonly #opened = new Map<string, KeyObject>();

  private constructor(
    private readonly c: Collection<CardKeysDoc>,
    private readonly box: SecretBox | undefined,
    private readonly cache: Cache,
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  static async open(
    store: DocumentStore,
    deps: { box: SecretBox | undefined; cache: Cache; clock: Clock; retentionMs: number },
  ): Promise<CardKeys> {
    const c = await store.collection<CardKeysDoc>({ name: 'card_signing_keys' });
    return new CardKeys(c, deps.box, deps.cache, deps.clock, deps.retentionMs);
  }

  #sealer(): SecretBox {
    if (!this.box)
      throw new AppError(
        'FAILED_PRECONDITION',
        'agent-card signing needs the secrets key on this deployment (SECRETS_KEY)',
      );
    return this.box;
  }

  #newKey(deploymentId: string): CardKeyDoc {
    const box = this.#sealer();
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const publicJwk = { kty: 'EC' as const, crv: 'P-256' as const, x: String(jwk.x), y: String(jwk.y) };
    const kid = jwkThumbprint(publicJwk);
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    return {
      kid,
      publicJwk,
      sealedPrivateKey: box.seal(pem, aad(deploymentId, kid)),
      createdAtMs: this.clock.now(),
      retiredAtMs: 0,
    };
  }

  /** The deployment's keys, creating its first one when it has none yet. */
  async #ensure(deploymentId: string): Promise<CardKeysDoc> {
    const cur = await this.c.get(deploymentId);
    if (cur) return cur.doc;
    const doc: CardKeysDoc = { deploymentId, keys: [this.#newKey(deploymentId)] };
    try {
      return (await this.c.insert(deploymentId, doc)).doc;
    } catch (err) {
      // Another replica created it first: theirs is the key.
      if (err instanceof AppError && err.code === 'DUPLICATE_KEY') {
        const won = await this.c.get(deploymentId);
        if (won) return won.doc;
      }
      throw err;
    }
  }

  #info(k: CardKeyDoc): CardKeyInfo {
    return {
      kid: k.kid,
      publicJwk: { ...k.publicJwk },
      createdAtMs: k.createdAtMs,
      retiredAtMs: k.retiredAtMs,
      publishedUntilMs: k.retiredAtMs === 0 ? 0 : k.retiredAtMs + this.retentionMs,
    };
  }

  #published(doc: CardKeysDoc): CardKeyInfo[] {
    const now = this.clock.now();
    return doc.keys.map((k) => this.#info(k)).filter((k) => k.publishedUntilMs === 0 || k.publishedUntilMs > now);
  }

  /** The public keys to publish: the signing key first, then retired keys within their retention. */
  async published(deploymentId: string): Promise<CardKeyInfo[]> {
    return this.#published(await this.#ensure(deploymentId));
  }

  /** Signs each payload with the deployment's signing key: `protected` = {alg, typ, kid, jku} (spec 8.4.2). */
  async sign(
    deploymentId: string,
    jku: string,
    payloads: readonly string[],
  ): Promise<{ kid: string; signatures: { protected: string; signature: string }[] }> {
    if (payloads.length < 1 || payloads.length > MAX_CARD_PAYLOADS)
      throw new InvalidParamsError(`payloads must be 1 to ${MAX_CARD_PAYLOADS}`);
    if (payloads.some((p) => Buffer.byteLength(p, 'utf8') > MAX_CARD_PAYLOAD_BYTES))
      throw new InvalidParamsError(`a payload must be at most ${MAX_CARD_PAYLOAD_BYTES} bytes`);
    if (!isJku(jku, deploymentId))
      throw new InvalidParamsError('jku must be an http(s) URL of the deployment’s .well-known/jwks.json');
    const doc = await this.#ensure(deploymentId);
    const key = doc.keys[0]!;
    const privateKey = this.#privateKey(deploymentId, key);
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JOSE', kid: key.kid, jku })).toString('base64url');
    const signatures = payloads.map((p) => {
      const input = `${header}.${Buffer.from(p, 'utf8').toString('base64url')}`;
      // JWS ES256 is the raw r||s form (RFC 7518 3.4), not DER.
      const sig = sign('sha256', Buffer.from(input, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      return { protected: header, signature: sig.toString('base64url') };
    });
    return { kid: key.kid, signatures };
  }

  #privateKey(deploymentId: string, k: CardKeyDoc): KeyObject {
    const cached = this.#opened.get(k.kid);
    if (cached) return cached;
    let pem: string;
    try {
      pem = this.#sealer().open(k.sealedPrivateKey, aad(deploymentId, k.kid));
    } catch {
      // The cause may name key ids; the sealed value itself is never logged or returned.
      throw new AppError(
        'FAILED_PRECONDITION',
        'the agent-card signing key cannot be opened with the configured secrets keys (SECRETS_KEY, SECRETS_KEY_PREVIOUS)',
      );
    }
    const key = createPrivateKey(pem);
    this.#opened.set(k.kid, key);
    return key;
  }

  /**
   * Rotation: a new key signs from now on; the previous signing key is retired and stays published for the
   * retention (clients holding a card signed with it can still verify it); keys past it are dropped.
   */
  async rotate(deploymentId: string): Promise<CardKeyInfo[]> {
    await this.#ensure(deploymentId);
    const saved = await updateWithRetry(this.c, deploymentId, (cur) => {
      const now = this.clock.now();
      const fresh = this.#newKey(deploymentId);
      const kept = cur.doc.keys
        .map((k) => (k.retiredAtMs === 0 ? { ...k, retiredAtMs: now } : k))
        .filter((k) => k.retiredAtMs + this.retentionMs > now)
        .slice(0, MAX_KEYS - 1);
      return { deploymentId, keys: [fresh, ...kept] };
    });
    if (!saved) throw new AppError('NOT_FOUND', `deployment ${deploymentId} has no signing keys`);
    await this.cache.delete(cardKeysCacheKey(deploymentId)).catch(() => undefined);
    return this.#published(saved.doc);
  }

  /**
   * A secrets-key rotation's step (beside `Secrets.resealStale`): signing keys sealed with an older secrets
   * key are sealed again with the current one. Keys no configured key opens stay as they are and are named
   * (`<deploymentId>/<kid>`): a rotation of that deployment's signing key replaces them.
   */
  async resealStale(pageSize = 200): Promise<{ resealed: number; unopenable: string[] }> {
    const box = this.#sealer();
    const out = { resealed: 0, unopenable: [] as string[] };
    for (let skip = 0; ; skip += pageSize) {
      const page = await this.c.find({}, { limit: pageSize, skip });
      for (const d of page) {
        let resealed = 0;
        let unopenable: string[] = [];
        await updateWithRetry(this.c, d.id, (cur) => {
          resealed = 0;
          unopenable = [];
          const keys = cur.doc.keys.map((k) => {
            if (!box.isStale(k.sealedPrivateKey)) return k;
            let pem: string;
            try {
              pem = box.open(k.sealedPrivateKey, aad(d.id, k.kid));
            } catch {
              unopenable.push(`${d.id}/${k.kid}`);
              return k;
            }
            resealed += 1;
            return { ...k, sealedPrivateKey: box.seal(pem, aad(d.id, k.kid)) };
          });
          return resealed > 0 ? { ...cur.doc, keys } : undefined;
        });
        out.resealed += resealed;
        out.unopenable.push(...unopenable);
      }
      if (page.length < pageSize) return out;
    }
  }
}

/** The jku the gateway names must be its JWKS URL of this very deployment (no other URL is put into a header). */
function isJku(jku: string, deploymentId: string): boolean {
  if (jku.length > MAX_JKU_CHARS) return false;
  let u: URL;
  try {
    u = new URL(jku);
  } catch {
    return false;
  }
  return (
    (u.protocol === 'https:' || u.protocol === 'http:') &&
    u.search === '' &&
    u.hash === '' &&
    u.pathname.endsWith(`/deployments/${encodeURIComponent(deploymentId)}/.well-known/jwks.json`)
  );
}
