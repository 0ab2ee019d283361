import type { Clock, Collection, DocumentStore, IdGenerator, Versioned } from '@a2a-inbound/ports';

/** One management change that succeeded (issue 24): who, what, when, through which service. */
export interface AuditEventDoc {
  subscriptionId: string;
  atMs: number;
  userId: string;
  role: string;
  /** How the caller was authenticated: a service's name, `team`, `in-process` or `unverified` (plaintext). */
  via: string;
  operation: string;
  /** The ids the change named, `field=value` pairs; never a secret value or a key. */
  target: string;
}

/** Audit records are kept a year, then swept with the other expired documents. */
export const AUDIT_RETENTION_MS = 365 * 24 * 3600 * 1000;

/** The subscription's audit log of management changes (append-only). */
export class AuditLog {
  private constructor(
    private readonly events: Collection<AuditEventDoc>,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  static async open(store: DocumentStore, clock: Clock, ids: IdGenerator): Promise<AuditLog> {
    const events = await store.collection<AuditEventDoc>({
      name: 'audit_events',
      indexes: [{ fields: ['subscriptionId', 'atMs'] }],
    });
    return new AuditLog(events, clock, ids);
  }

  async record(event: Omit<AuditEventDoc, 'atMs'>): Promise<void> {
    const atMs = this.clock.now();
    await this.events.insert(this.ids.next(), { ...event, atMs }, { expiresAt: atMs + AUDIT_RETENTION_MS });
  }

  /** Newest first. */
  async list(subscriptionId: string, limit: number): Promise<Versioned<AuditEventDoc>[]> {
    return this.events.find({ subscriptionId }, { limit, sort: { field: 'atMs', direction: -1 } });
  }

  /** Retention: deletes the records older than AUDIT_RETENTION_MS. */
  async sweep(): Promise<number> {
    return this.events.sweepExpired(this.clock.now());
  }
}
