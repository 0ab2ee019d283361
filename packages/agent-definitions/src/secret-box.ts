import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest: AES-256-GCM with a key from configuration (`SECRETS_KEY`, 32 bytes base64). A sealed
 * value is `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url), where keyId names the key (a hash prefix), so
 * a rotation keeps the previous keys for opening (`SECRETS_KEY_PREVIOUS`) while new values use the current
 * one. The secret's name and subscription are the additional authenticated data: a sealed value copied to
 * another name or tenant does not open.
 */
export class SecretBox {
  readonly #current: { id: string; key: Buffer };
  readonly #byId = new Map<string, Buffer>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const k of [current, ...previous]) {
      if (k.length !== 32) throw new Error('a secrets key must be 32 bytes (AES-256)');
      this.#byId.set(keyIdOf(k), k);
    }
    this.#current = { id: keyIdOf(current), key: current };
  }

  /** From base64 keys (the configuration's form). */
  static fromBase64(current: string, previous: readonly string[] = []): SecretBox {
    return new SecretBox(
      Buffer.from(current, 'base64'),
      previous.map((p) => Buffer.from(p, 'base64')),
    );
  }

  get keyId(): string {
    return this.#current.id;
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const b = (x: Buffer): string => x.toString('base64url');
    return ['v1', this.#current.id, b(iv), b(ct), b(cipher.getAuthTag())].join('.');
  }

  /** The plaintext; throws when the value was sealed with a key this box does not have, or was altered. */
  open(sealed: string, aad: string): string {
    const [v, id, iv, ct, tag] = sealed.split('.');
    if (v !== 'v1' || !id || iv === undefined || ct === undefined || tag === undefined)
      throw new Error('not a sealed secret');
    const key = this.#byId.get(id);
    if (!key) throw new Error(`sealed with key ${id}, which is not configured (SECRETS_KEY / SECRETS_KEY_PREVIOUS)`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether the value is sealed with an older key (a rotation re-seals it). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.#current.id;
  }
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** The additional authenticated data of a subscription's secret. */
export const secretAad = (subscriptionId: string, name: string): string => `${subscriptionId}/${name}`;

export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
