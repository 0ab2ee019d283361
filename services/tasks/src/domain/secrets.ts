import { SECRET_NAME_PATTERN, SecretBox, secretAad } from '@a2a-inbound/agent-definitions';
import { AppError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { Clock, Collection, DocumentStore } from '@a2a-inbound/ports';
import { updateWithRetry } from '@a2a-inbound/ports';

/** A subscription's secret (collection `secrets`, id `<subscriptionId>:<name>`): only the sealed value is stored. */
export interface SecretDoc {
  subscriptionId: string;
  name: string;
  /** AES-256-GCM, `v1.<keyId>.…` (SecretBox); the plaintext is never stored, returned or logged. */
  sealed: string;
  createdAtMs: number;
  updatedAtMs: number;
}

/** What any API shows of a secret: its name and dates, never its value. */
export interface SecretInfo {
  name: string;
  createdAtMs: number;
  updatedAtMs: number;
}

export const MAX_SECRET_BYTES = 16 * 1024;
const MAX_SECRETS_PER_SUBSCRIPTION = 500;

/**
 * Secrets by reference: definitions name them (`apiKeySecret`), the run request carries their sealed values,
 * and only the runner (which has the key too) opens them, at run time.
 */
export class Secrets {
  private constructor(
    private readonly c: Collection<SecretDoc>,
    private readonly box: SecretBox | undefined,
    private readonly clock: Clock,
  ) {}

  static async open(store: DocumentStore, box: SecretBox | undefined, clock: Clock): Promise<Secrets> {
    const c = await store.collection<SecretDoc>({ name: 'secrets', indexes: [{ fields: ['subscriptionId'] }] });
    return new Secrets(c, box, clock);
  }

  #sealer(): SecretBox {
    if (!this.box)
      throw new AppError('FAILED_PRECONDITION', 'secrets are not configured on this deployment (SECRETS_KEY)');
    return this.box;
  }

  /** Creates or replaces a secret (a replace re-seals with the current key: the rotation step). */
  async put(subscriptionId: string, name: string, value: string): Promise<SecretInfo> {
    if (!SECRET_NAME_PATTERN.test(name))
      throw new InvalidParamsError(
        'name must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit',
      );
    if (typeof value !== 'string' || value.length === 0) throw new InvalidParamsError('value is required');
    if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES)
      throw new InvalidParamsError(`value must be at most ${MAX_SECRET_BYTES} bytes`);
    const sealed = this.#sealer().seal(value, secretAad(subscriptionId, name));
    const id = `${subscriptionId}:${name}`;
    const now = this.clock.now();
    for (;;) {
      const cur = await this.c.get(id);
      if (!cur) {
        const count = (await this.c.find({ subscriptionId }, { limit: MAX_SECRETS_PER_SUBSCRIPTION + 1 })).length;
        if (count >= MAX_SECRETS_PER_SUBSCRIPTION)
          throw new AppError('CONFLICT', `at most ${MAX_SECRETS_PER_SUBSCRIPTION} secrets per subscription`);
        try {
          const d = await this.c.insert(id, { subscriptionId, name, sealed, createdAtMs: now, updatedAtMs: now });
          return info(d.doc);
        } catch (err) {
          if (err instanceof AppError && err.code === 'DUPLICATE_KEY') continue;
          throw err;
        }
      }
      const next = { ...cur.doc, sealed, updatedAtMs: now };
      try {
        await this.c.replace(id, cur.version, next);
        return info(next);
      } catch (err) {
        if (err instanceof AppError && err.code === 'VERSION_CONFLICT') continue;
        throw err;
      }
    }
  }

  async list(subscriptionId: string): Promise<SecretInfo[]> {
    const rows = await this.c.find({ subscriptionId }, { limit: MAX_SECRETS_PER_SUBSCRIPTION });
    return rows.map((r) => info(r.doc)).sort((a, b) => a.name.localeCompare(b.name));
  }

  async exists(subscriptionId: string, name: string): Promise<boolean> {
    return (await this.c.get(`${subscriptionId}:${name}`)) !== undefined;
  }

  async delete(subscriptionId: string, name: string): Promise<void> {
    if (!(await this.c.delete(`${subscriptionId}:${name}`))) throw new NotFoundError(`secret ${name}`);
  }

  /**
   * The value of a secret, for a check the tasks service makes itself with it (reading an upstream's agent card
   * when a version is created). Undefined when it does not exist or this service cannot open it.
   */
  async open(subscriptionId: string, name: string): Promise<string | undefined> {
    const d = await this.c.get(`${subscriptionId}:${name}`);
    if (!d || !this.box) return undefined;
    try {
      return this.box.open(d.doc.sealed, secretAad(subscriptionId, name));
    } catch {
      return undefined;
    }
  }

  /**
   * A key rotation's last step before the old key is dropped: every value sealed with an older key
   * (`SECRETS_KEY_PREVIOUS`) is opened and sealed again with the current `SECRETS_KEY`, in place (a concurrent
   * `put` wins: the value is then already current). Values that no configured key opens are left as they are
   * and named in `unopenable` (by `<subscriptionId>:<name>`, never by value).
   */
  async resealStale(pageSize = 200): Promise<{ resealed: number; current: number; unopenable: string[] }> {
    const box = this.#sealer();
    const out = { resealed: 0, current: 0, unopenable: [] as string[] };
    for (let skip = 0; ; skip += pageSize) {
      const page = await this.c.find({}, { limit: pageSize, skip });
      for (const row of page) {
        let verdict: 'current' | 'unopenable' | undefined;
        await updateWithRetry(
          this.c,
          row.id,
          (cur) => {
            verdict = undefined;
            if (!box.isStale(cur.doc.sealed)) {
              verdict = 'current';
              return undefined;
            }
            const aad = secretAad(cur.doc.subscriptionId, cur.doc.name);
            let plain: string;
            try {
              plain = box.open(cur.doc.sealed, aad);
            } catch {
              verdict = 'unopenable';
              return undefined;
            }
            return { ...cur.doc, sealed: box.seal(plain, aad) };
          },
          { current: row, afterWrite: () => void out.resealed++ },
        );
        if (verdict === 'current') out.current++;
        else if (verdict === 'unopenable') out.unopenable.push(row.id);
      }
      if (page.length < pageSize) return out;
    }
  }

  /** The sealed values of the named secrets (those that exist), for a run request. */
  async sealedFor(subscriptionId: string, names: readonly string[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const name of new Set(names)) {
      const d = await this.c.get(`${subscriptionId}:${name}`);
      if (d) out[name] = d.doc.sealed;
    }
    return out;
  }
}

const info = (d: SecretDoc): SecretInfo => ({ name: d.name, createdAtMs: d.createdAtMs, updatedAtMs: d.updatedAtMs });
