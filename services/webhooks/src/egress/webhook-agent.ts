import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { dnsResolver, isPublicAddress, type Resolver } from '@a2a-inbound/runtime';
import { Agent, type Dispatcher } from 'undici';

export const CONNECT_TIMEOUT_MS = 5_000;

/** A destination address refused by the egress policy (never retried: it is the destination's fault). */
export class BlockedDestinationError extends Error {
  readonly code = 'BLOCKED_DESTINATION';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`destination ${host} (${address}) is not a public address`);
    this.name = 'BlockedDestinationError';
  }
}

export interface WebhookAgentOptions {
  /**
   * Egress policy on each resolved or literal address (with the name it was resolved from). Default: public
   * unicast only; the operator's PUSH_ALLOW_* list widens it.
   */
  isAllowed?: (ip: string, hostname?: string) => boolean;
  /** DNS used by the agent's `lookup` (default: the system resolver). Tests inject one to simulate rebinding. */
  resolve?: Resolver;
  /** Extra trusted CA certificates (PEM), for a test receiver's self-signed certificate. */
  ca?: string | string[];
  connectTimeoutMs?: number;
}

/**
 * The one undici Agent of webhook egress. The SSRF check is on the RESOLVED address (a custom `lookup`: every
 * address a name resolves to must be allowed, which also covers DNS rebinding between registration and
 * delivery) and on literal IPs in `dispatch` (they never reach `lookup`).
 */
export function createWebhookAgent(options: WebhookAgentOptions = {}): WebhookAgent {
  const isAllowed = options.isAllowed ?? isPublicAddress;
  const resolve = options.resolve ?? dnsResolver;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(new Error(`no address for ${hostname}`), '', 0);
          return;
        }
        const blocked = addresses.find((a) => !isAllowed(a, hostname));
        if (blocked !== undefined) {
          callback(new BlockedDestinationError(hostname, blocked), '', 0);
          return;
        }
        const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
        if (lookupOptions.all) callback(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), '', 0),
    );
  };
  return new WebhookAgent(isAllowed, {
    connect: {
      lookup,
      timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      ...(options.ca ? { ca: options.ca } : {}),
    },
  });
}

export class WebhookAgent extends Agent {
  readonly #isAllowed: (ip: string, hostname?: string) => boolean;

  constructor(isAllowed: (ip: string, hostname?: string) => boolean, options: Agent.Options) {
    super(options);
    this.#isAllowed = isAllowed;
  }

  /** A literal IP never goes through `lookup`: checked here. */
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const host = new URL(String(options.origin)).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !this.#isAllowed(host)) throw new BlockedDestinationError(host, host);
    return super.dispatch(options, handler);
  }
}
