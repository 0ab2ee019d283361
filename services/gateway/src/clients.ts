import { controlV1, tasksV1, webhooksV1 } from '@a2a-inbound/proto';
import { call, directClient } from '@a2a-inbound/runtime';
import type { grpc } from '@a2a-inbound/runtime';
import { ParsedValues, type Cache } from '@a2a-inbound/ports';
import { AppError } from '@a2a-inbound/errors';

export interface GatewayClients {
  tasks: tasksV1.TasksServiceClient;
  control: controlV1.ControlPlaneServiceClient;
  /** The webhooks service: the push delivery log (read only). */
  webhooks: webhooksV1.WebhooksServiceClient;
  close(): void;
}

/** `creds`: the gateway's service certificate with mutual TLS, or plaintext (ADR 0032). */
export function connectClients(
  addresses: { tasks: string; control: string; webhooks: string },
  creds: grpc.ChannelCredentials,
): GatewayClients {
  // Direct calls when the service runs in this process (ADR 0040), else the network.
  const tasks = directClient(tasksV1.TasksServiceClient, addresses.tasks, creds);
  const control = directClient(controlV1.ControlPlaneServiceClient, addresses.control, creds);
  const webhooks = directClient(webhooksV1.WebhooksServiceClient, addresses.webhooks, creds);
  return {
    tasks,
    control,
    webhooks,
    close: () => {
      tasks.close();
      control.close();
      webhooks.close();
    },
  };
}

/** A generated message type's JSON mapping (ts-proto's `fromJSON`/`toJSON`). */
interface JsonCodec<T> {
  fromJSON(object: unknown): T;
  toJSON(message: T): unknown;
}

/** A codec with the values it parsed from the cache. */
interface Parsed<T> {
  toJSON(message: T): unknown;
  values: ParsedValues<T>;
}

function parsed<T>(codec: JsonCodec<T>): Parsed<T> {
  return { toJSON: (m) => codec.toJSON(m), values: new ParsedValues((raw) => codec.fromJSON(JSON.parse(raw))) };
}

const AGENT_TTL_MS = 30_000;
const KEY_TTL_MS = 30_000;
const CARD_KEYS_TTL_MS = 60_000;
const CARD_SIGNATURES_TTL_MS = 3_600_000;

/**
 * Cached lookups of the hot path. The cache is shared by every replica (Redis in production) and the
 * tasks service deletes the entries on every change, so a change is seen at once everywhere.
 */
export class Lookups {
  // Parsed once per cached string: a hit hands out the same read-only value (ADR 0040).
  readonly #agents = parsed(controlV1.AgentView);
  readonly #keys = parsed(controlV1.KeyPrincipal);
  readonly #cardKeys = parsed(controlV1.CardSigningKeys);
  readonly #signatures = parsed(controlV1.SignAgentCardResponse);

  constructor(
    private readonly control: controlV1.ControlPlaneServiceClient,
    private readonly cache: Cache,
  ) {}

  async agent(agentId: string): Promise<controlV1.AgentView> {
    return this.#through(`agent:${agentId}`, AGENT_TTL_MS, this.#agents, () =>
      call(this.control.resolveAgent.bind(this.control), { agentId }, { deadlineMs: 10_000 }),
    );
  }

  async key(keyHash: string): Promise<controlV1.KeyPrincipal> {
    return this.#through(`key:${keyHash}`, KEY_TTL_MS, this.#keys, () =>
      call(this.control.authenticateKey.bind(this.control), { keyHash }, { deadlineMs: 10_000 }),
    );
  }

  async catalog(deploymentId: string): Promise<controlV1.DeploymentCatalog> {
    return call(this.control.getDeploymentCatalog.bind(this.control), { deploymentId }, { deadlineMs: 10_000 });
  }

  /** A deployment's card signing keys (public parts); the tasks service deletes the entry when it rotates them. */
  async cardKeys(deploymentId: string): Promise<controlV1.CardSigningKeys> {
    return this.#through(`card-keys:${deploymentId}`, CARD_KEYS_TTL_MS, this.#cardKeys, () =>
      call(this.control.getCardSigningKeys.bind(this.control), { deploymentId }, { deadlineMs: 10_000 }),
    );
  }

  /**
   * Card payloads signed by the control plane with the deployment's current key (ADR 0034), shared by the
   * replicas through the cache by `contentId` (key, jku and card): every gateway serves the same bytes (one
   * ETag; ECDSA signatures differ at each signing) and a changed card is signed once, not once per replica.
   */
  async signCard(
    deploymentId: string,
    jku: string,
    payloads: string[],
    contentId: string,
    kid: string,
  ): Promise<controlV1.SignAgentCardResponse> {
    const key = `card-sig:${contentId}`;
    const hit = await this.#cached(key);
    if (hit) return this.#signatures.values.get(key, hit);
    const r = await call(
      this.control.signAgentCard.bind(this.control),
      { deploymentId, jku, payloads },
      { deadlineMs: 10_000 },
    );
    if (r.kid !== kid) {
      // The key set read for the content id predates a rotation (a refill raced its invalidation): drop it, so
      // the JWKS lists the signing key, and keep these signatures out of an id that names the old key.
      await this.cache.delete(`card-keys:${deploymentId}`).catch(() => undefined);
      return r;
    }
    await this.#store(key, JSON.stringify(controlV1.SignAgentCardResponse.toJSON(r)), CARD_SIGNATURES_TTL_MS);
    return r;
  }

  async defaultAgentId(): Promise<string> {
    return (await call(this.control.getDefaultAgent.bind(this.control), {}, { deadlineMs: 10_000 })).agentId;
  }

  /** The cached value, or the control plane's answer (then cached for `ttl`); a cache outage degrades to direct lookups. */
  async #through<T>(key: string, ttl: number, codec: Parsed<T>, lookup: () => Promise<T>): Promise<T> {
    const hit = await this.#cached(key);
    if (hit) return codec.values.get(key, hit);
    const value = await lookup();
    await this.#store(key, JSON.stringify(codec.toJSON(value)), ttl);
    return value;
  }

  async #cached(key: string): Promise<string | undefined> {
    try {
      return await this.cache.get(key);
    } catch {
      return undefined; // a cache outage degrades to direct lookups
    }
  }

  async #store(key: string, value: string, ttl: number): Promise<void> {
    try {
      await this.cache.set(key, value, ttl);
    } catch {
      /* best effort: the next lookup goes to the control plane */
    }
  }
}

export function notFound(err: unknown): boolean {
  return err instanceof AppError && err.code === 'NOT_FOUND';
}
