import { createHash } from 'node:crypto';
import type { Logger } from '@a2a-inbound/logger';
import { a2aV1 } from '@a2a-inbound/proto';
import { canonicalJson } from './jcs';

/** A2A's AgentCardSignature (spec 4.4.7): a flattened JWS whose payload is the canonical card, detached. */
export interface CardSignature {
  protected: string;
  signature: string;
}

/** A public key of the JWKS (RFC 7517) with the members a verifier selects it by. */
export interface PublishedKey {
  kid: string;
  /** The JWK text the control plane keeps (`kty`, `crv`, `x`, `y`). */
  publicJwk: string;
}

/** The control plane's side of signing (ADR 0034): the private keys never leave it. */
export interface CardSigningPort {
  /** The deployment's published keys, the signing key first (cached; a rotation invalidates it). */
  keys(deploymentId: string): Promise<{ keys: PublishedKey[] }>;
  /**
   * One signature per payload, made with the deployment's signing key, `jku` in the protected header. `contentId`
   * names the card content and `kid`, the signing key the caller read: the adapter may answer from signatures
   * another replica had made for it, and refreshes its key set when the control plane signed with another key.
   */
  sign(
    deploymentId: string,
    jku: string,
    payloads: string[],
    contentId: string,
    kid: string,
  ): Promise<{ kid: string; signatures: CardSignature[] }>;
}

export const jwksPath = (deploymentId: string): string =>
  `/deployments/${encodeURIComponent(deploymentId)}/.well-known/jwks.json`;

/** The JWKS document: public keys only, each with its `kid`, `use` and `alg`. */
export function jwksOf(keys: readonly PublishedKey[]): { keys: Record<string, unknown>[] } {
  return {
    keys: keys.map((k) => {
      const { kty, crv, x, y } = JSON.parse(k.publicJwk) as Record<string, unknown>;
      return { kty, crv, x, y, kid: k.kid, use: 'sig', alg: 'ES256' };
    }),
  };
}

/** `""`, null, `[]` and `{}` removed, recursively (the official SDKs' normalisation before JCS). */
function withoutEmpty(v: unknown): unknown {
  if (v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const out = v.map(withoutEmpty).filter((x) => x !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const c = withoutEmpty(x);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return v;
}

/**
 * The two payloads a card is signed over (ADR 0034), each RFC 8785 JSON of the card without `signatures`:
 * - `v1` (signatures[0]): the card read as A2A 1.0's AgentCard (proto field presence: unknown fields and
 *   defaults dropped, then empty values), the form the official 1.x SDKs canonicalise before verifying (spec 8.4.1);
 * - `document` (signatures[1]): the card exactly as served, every field (the 0.3 ones too) covered.
 * A verifier accepts a card when one signature verifies (spec 8.4.3: multiple signatures MAY be present).
 */
export function cardPayloads(card: object): { document: string; v1: string } {
  const { signatures: _ignored, ...rest } = card as Record<string, unknown>;
  const asV1 = a2aV1.AgentCard.toJSON(a2aV1.AgentCard.fromJSON(rest)) as Record<string, unknown>;
  delete asV1.signatures;
  return { document: canonicalJson(rest), v1: canonicalJson(withoutEmpty(asV1) ?? {}) };
}

const MAX_ENTRIES = 2_000;
const FAILURE_LOG_INTERVAL_MS = 60_000;
/**
 * New signings per deployment and minute when the `jku` comes from the request. Without PUBLIC_BASE_URL the
 * `jku` (so the content id) is built from the request's Host header: each made-up Host would be a SignAgentCard
 * call and a shared cache entry; past it the card is served unsigned until the minute ends. With
 * PUBLIC_BASE_URL (`trustedBaseUrl`) no Host can make a new content id, so nothing is limited: a catalog of
 * more agents, or every card of a deployment after a rotation, is signed at once.
 */
export const MAX_NEW_SIGNINGS_PER_MINUTE = 30;

/**
 * Signs public cards once per content: the signatures are kept by a hash of (signing key, jku, card JSON), so a
 * card request costs a hash and a map lookup; ES256 and the control-plane call happen only when an agent, the
 * host or the signing key changed. Concurrent first requests for one card share one signing call.
 */
export class CardSigner {
  readonly #done = new Map<string, CardSignature[]>();
  readonly #pending = new Map<string, Promise<CardSignature[]>>();
  readonly #lastFailureLog = new Map<string, number>();
  readonly #newSignings = new Map<string, { since: number; n: number }>();
  /** Signing calls made (not cache hits): what the caching saves, visible to tests and metrics. */
  signingCalls = 0;

  constructor(
    private readonly port: CardSigningPort,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** The configured base URL (PUBLIC_BASE_URL): cards under it are never limited. */
    private readonly trustedBaseUrl = '',
  ) {}

  /**
   * The card with `signatures` set, or as given when signing is unavailable (no secrets key configured, the
   * control plane unreachable): a card is never withheld for it, and the reason is logged (throttled).
   */
  async signed<T extends object>(
    card: T,
    deploymentId: string,
    baseUrl: string,
  ): Promise<T & { signatures?: CardSignature[] }> {
    const jku = `${baseUrl}${jwksPath(deploymentId)}`;
    try {
      const { keys } = await this.port.keys(deploymentId);
      const kid = keys[0]?.kid ?? '';
      const id = createHash('sha256')
        .update(`${kid}\n${jku}\n${JSON.stringify(card)}`)
        .digest('base64url');
      const limited = !this.trustedBaseUrl || baseUrl !== this.trustedBaseUrl;
      const signatures = await this.#signatures(id, card, deploymentId, jku, kid, limited);
      return { ...card, signatures };
    } catch (err) {
      const last = this.#lastFailureLog.get(deploymentId) ?? -Infinity;
      if (this.now() - last >= FAILURE_LOG_INTERVAL_MS) {
        this.#lastFailureLog.set(deploymentId, this.now());
        this.log.warn({ err, deploymentId }, 'agent card served unsigned: signing failed');
      }
      return card;
    }
  }

  async #signatures(
    id: string,
    card: object,
    deploymentId: string,
    jku: string,
    kid: string,
    limited: boolean,
  ): Promise<CardSignature[]> {
    const hit = this.#done.get(id);
    if (hit) {
      // Least recently used goes first: re-insert on use.
      this.#done.delete(id);
      this.#done.set(id, hit);
      return hit;
    }
    const inFlight = this.#pending.get(id);
    if (inFlight) return inFlight;
    if (limited) this.#countNewSigning(deploymentId);
    const p = (async () => {
      const { document, v1 } = cardPayloads(card);
      this.signingCalls += 1;
      // The 1.0 form first: the official SDKs try signatures in order and log each one that fails.
      const r = await this.port.sign(deploymentId, jku, [v1, document], id, kid);
      const signatures = r.signatures.map((s) => ({ protected: s.protected, signature: s.signature }));
      if (r.kid !== kid) return signatures; // a rotation raced the key read: not kept under the old key's id
      this.#done.set(id, signatures);
      if (this.#done.size > MAX_ENTRIES) this.#done.delete(this.#done.keys().next().value!);
      return signatures;
    })();
    this.#pending.set(id, p);
    try {
      return await p;
    } finally {
      this.#pending.delete(id);
    }
  }

  #countNewSigning(deploymentId: string): void {
    const window = this.#newSignings.get(deploymentId);
    if (!window || this.now() - window.since >= 60_000)
      this.#newSignings.set(deploymentId, { since: this.now(), n: 1 });
    else if (window.n >= MAX_NEW_SIGNINGS_PER_MINUTE)
      throw new Error(`more than ${MAX_NEW_SIGNINGS_PER_MINUTE} new card signings a minute for this deployment`);
    else window.n += 1;
  }
}
