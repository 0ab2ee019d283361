import type { Cache, Clock, IdGenerator } from '@a2a-inbound/ports';
import { Accounts } from './accounts';
import { Catalog } from './catalog';
import type { Collections } from './control-common';

export * from './control-common';

/**
 * The control plane's two concerns over one set of collections: accounts (subscriptions, users, API keys and
 * credits) and the catalog (agents, versions, deployments, per-agent settings, and agent resolution).
 */
export class ControlPlane {
  readonly accounts: Accounts;
  readonly catalog: Catalog;

  constructor(c: Collections, cache: Cache, clock: Clock, ids: IdGenerator) {
    this.accounts = new Accounts(c, cache, clock, ids);
    this.catalog = new Catalog(c, cache, clock, ids);
  }
}
