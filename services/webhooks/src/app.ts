import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, isOutage } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { systemClock, type Bus, type Clock, type CommitBarrier, type DocumentStore } from '@a2a-inbound/ports';
import { controlV1, eventsV1, tasksV1, webhooksV1 } from '@a2a-inbound/proto';
import {
  call,
  directClient,
  pushEgressPolicy,
  Lifecycle,
  PeriodicReadiness,
  Semaphore,
  startGrpcServer,
  grpcChannelCredentials,
  type GrpcAuthPolicy,
  type GrpcServerHandle,
  type GrpcTlsFiles,
  type Resolver,
  unary,
} from '@a2a-inbound/runtime';
import type { WebhooksConfig } from './config';
import { Deliverer, openDeliveryLog, pushBodies, type DeliveryLogDoc, type PushSource } from './delivery';
import { listDeliveries } from './delivery-log';
import { createWebhookAgent } from './egress/webhook-agent';

export const TASK_UPDATES_TOPIC = 'a2a.task.updates';
/** The consumer group of the task updates (the durable embedded mode keeps them until this group handled them). */
export const TASK_UPDATES_GROUP = 'webhooks';
const READINESS_INTERVAL_MS = 2_000;

export interface WebhooksApp {
  readonly grpc: GrpcServerHandle;
  /** Task updates seen (for operators). */
  readonly seen: () => number;
  /** Pings the bus now; resolves whether the service is ready (what gRPC health reports). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** Test seams of egress. Production uses none of them: strict public-address policy, system DNS and CAs. */
export interface WebhookEgressOptions {
  isAllowed?: (ip: string, hostname?: string) => boolean;
  resolve?: Resolver;
  ca?: string | string[];
  /** Called after each finished delivery (delivered or given up). */
  onDelivery?: (d: DeliveryLogDoc) => void;
}

/** The tasks service's internal GetPushDelivery RPC (over mutual TLS with `tls`). */
export function grpcPushSource(address: string, tls?: GrpcTlsFiles): PushSource & { close(): void } {
  const client = directClient(tasksV1.TasksServiceClient, address, grpcChannelCredentials(tls));
  return {
    get: async (taskId, agentId) => {
      const r = await call(
        client.getPushDelivery.bind(client),
        { taskId, agentId: agentId ?? '' },
        { deadlineMs: 10_000 },
      );
      return { taskJson: r.taskJson, enabled: r.pushNotificationsEnabled, targets: r.targets };
    },
    close: () => client.close(),
  };
}

/** A management user, as the tasks service authenticated its token. */
export interface WebhooksTeam {
  userId: string;
  subscriptionId: string;
}

/**
 * Management user tokens, verified by the tasks service (AuthenticateUser: by SHA-256, the stored digest
 * compared in constant time), over mutual TLS.
 */
export function grpcUserVerifier(
  address: string,
  tls: GrpcTlsFiles | undefined,
): { verify(token: string): Promise<WebhooksTeam>; close(): void } {
  const client = directClient(controlV1.ControlPlaneServiceClient, address, grpcChannelCredentials(tls));
  return {
    verify: async (token) => {
      const digest = createHash('sha256').update(token, 'utf8').digest();
      const u = await call(
        client.authenticateUser.bind(client),
        { tokenHash: digest.toString('hex') },
        { deadlineMs: 10_000 },
      );
      const stored = Buffer.from(u.tokenHash, 'hex');
      if (stored.length !== digest.length || !timingSafeEqual(stored, digest))
        throw new AppError('UNAUTHENTICATED', 'Invalid credential');
      return { userId: u.userId, subscriptionId: u.subscriptionId };
    },
    close: () => client.close(),
  };
}

/**
 * Who may read the delivery log: the gateway (it checked the user's role and the agent's tenancy through the
 * tasks service first), or a team's management user for its own subscription only (ADR 0032).
 */
export function webhooksAuthPolicy(verifyUser: (token: string) => Promise<WebhooksTeam>): GrpcAuthPolicy<WebhooksTeam> {
  return {
    bearer: verifyUser,
    authorize: (rpc, principal, request) => {
      if (principal.kind === 'in-process') return;
      if (principal.kind === 'service') {
        if (principal.service === 'gateway') return;
        throw new AppError('PERMISSION_DENIED', `the ${principal.service} service may not call ${rpc}`);
      }
      const req = request as webhooksV1.ListPushDeliveriesRequest;
      if (req.subscriptionId !== '' && req.subscriptionId !== principal.team.subscriptionId)
        throw new AppError('PERMISSION_DENIED', 'the subscription is not the one of the credential');
      req.subscriptionId = principal.team.subscriptionId;
    },
  };
}

/**
 * The webhooks service: consumes task updates and pushes the Task to the task's push configs on every
 * status-update event, in the A2A version each config was created with (0.3 Task, or 1.0 StreamResponse) (artifact deltas are not pushed: the next status update carries them). Each delivery
 * is signed, SSRF-guarded and retried (see ADR 0010); the handler awaits the bounded retry budget.
 */
export async function startWebhooksApp(
  deps: {
    bus: Bus;
    store: DocumentStore;
    source: PushSource;
    log: Logger;
    clock?: Clock;
    readinessIntervalMs?: number;
    egress?: WebhookEgressOptions;
    /** Who may call the server (with mutual TLS); undefined: everyone (plaintext development layouts). */
    auth?: GrpcAuthPolicy<WebhooksTeam>;
    /**
     * This process owns its data alone (the durable embedded mode): the delivery claims an earlier process left
     * `pending` are taken over at once (its updates come again from the durable outbox, ADR 0038).
     */
    soleOwner?: boolean;
    /** The store's commit barrier (the durable embedded mode, ADR 0069): every answer waits for it. */
    commits?: CommitBarrier;
  },
  config: WebhooksConfig,
): Promise<WebhooksApp> {
  const lifecycle = new Lifecycle();
  // Shutdown stops retry waits and in-flight POSTs at once; an interrupted delivery is redelivered (ADR 0010).
  const shutdown = new AbortController();
  const egress = deps.egress ?? {};
  // Public addresses, plus the operator's push allow-list (PUSH_ALLOW_*), on every resolved address.
  const pushPolicy = pushEgressPolicy(config.pushAllowList);
  const isAllowed = egress.isAllowed ?? ((ip: string, hostname?: string) => pushPolicy.allowsAddress(ip, hostname));
  const agent = createWebhookAgent({
    isAllowed,
    ...(egress.resolve ? { resolve: egress.resolve } : {}),
    ...(egress.ca ? { ca: egress.ca } : {}),
  });
  lifecycle.add('webhook agent', agent);
  const deliveryLog = await openDeliveryLog(deps.store);
  // Retention of the delivery log: records carry `expiresAt`; every replica sweeps (deletes are idempotent).
  const clock = deps.clock ?? systemClock;
  const retention = setInterval(() => {
    deliveryLog.sweepExpired(clock.now()).catch((err: unknown) => deps.log.warn({ err }, 'delivery log sweep failed'));
  }, 60_000);
  retention.unref();
  lifecycle.onClose('delivery log sweep', async () => clearInterval(retention));
  const deliverer = new Deliverer({
    agent,
    log: deliveryLog,
    logger: deps.log,
    clock: deps.clock ?? systemClock,
    policy: { retryBaseMs: config.retryBaseMs, retryMaxDelayMs: config.retryMaxDelayMs },
    isAllowed,
    egressPolicy: pushPolicy,
    shutdown: shutdown.signal,
    ...(egress.resolve ? { resolve: egress.resolve } : {}),
    ...(deps.soleOwner ? { earlierClaimsBeforeMs: clock.now() } : {}),
  });
  let seen = 0;
  const taskSlots = new Semaphore(config.concurrency);
  const pushUpdate = async (e: eventsV1.LoggedTaskEvent): Promise<void> => {
    const d = await deps.source.get(e.taskId, e.agentId);
    if (!d.enabled || !d.taskJson || d.targets.length === 0) return;
    const seq = Number(e.seq);
    const bodyFor = pushBodies(d.taskJson);
    await Promise.all(
      d.targets.map(async (t) => {
        const done = await deliverer.deliver(
          { taskId: e.taskId, seq, subscriptionId: e.subscriptionId, agentId: e.agentId },
          t,
          bodyFor(t.protocolVersion),
        );
        if (done) egress.onDelivery?.(done);
      }),
    );
  };
  lifecycle.add(
    'task-updates consumer',
    // One task's updates in order; a slow or retried endpoint holds one slot, not every task of its partition.
    await deps.bus.subscribe(
      TASK_UPDATES_TOPIC,
      TASK_UPDATES_GROUP,
      async (m) => {
        const announced = eventsV1.LoggedTaskEvent.decode(m.value);
        // A batch announcement carries the events before the last one as `preceding`: one task's run events
        // (ADR 0025) and the updates of several tasks announced together (ADR 0041). Each task's events in
        // order, the tasks side by side; any failure redelivers the message (claims make it idempotent).
        const events = [...announced.preceding, { ...announced, preceding: [] }];
        seen += events.length;
        const byTask = new Map<string, eventsV1.LoggedTaskEvent[]>();
        for (const e of events) {
          // pushOff: the agent had push notifications off when tasks announced it (ADR 0046): nothing to push.
          if (e.pushOff || !isStatusUpdate(e.eventJson)) continue;
          const list = byTask.get(e.taskId);
          if (list) list.push(e);
          else byTask.set(e.taskId, [e]);
        }
        const outcomes = await Promise.allSettled(
          [...byTask.values()].map(async (updates) => {
            // WEBHOOKS_CONCURRENCY bounds the tasks pushed at once across messages, as when each message was
            // one task: a batch of 256 tasks must not open 256 deliveries (and their sockets) per bus slot.
            const release = await taskSlots.acquire();
            try {
              for (const e of updates) await pushUpdate(e);
            } finally {
              release();
            }
          }),
        );
        const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (failed) throw failed.reason;
      },
      { concurrency: config.concurrency, isTransient: isOutage },
    ),
  );
  // gRPC health: SERVING while the bus answered its last background ping; NOT_SERVING once close() began.
  const readiness = new PeriodicReadiness(() => deps.bus.ping(), {
    intervalMs: deps.readinessIntervalMs ?? READINESS_INTERVAL_MS,
    log: deps.log,
  });
  // The delivery log's read side (the console's per-agent log, through the gateway).
  const webhooksService: webhooksV1.WebhooksServiceServer = {
    listPushDeliveries: unary(
      async (r: webhooksV1.ListPushDeliveriesRequest): Promise<webhooksV1.ListPushDeliveriesResponse> =>
        listDeliveries(deliveryLog, r),
      deps.log,
    ),
  };
  const grpcServer = await startGrpcServer(
    [
      {
        definition: webhooksV1.WebhooksServiceService,
        implementation: webhooksService,
        ...(deps.auth ? { auth: deps.auth } : {}),
      },
    ],
    {
      host: config.grpcHost,
      port: config.grpcPort,
      isServing: () => readiness.isReady(),
      tls: config.grpcTls,
      healthPort: config.grpcHealthPort,
      commits: deps.commits,
    },
  );
  lifecycle.add('grpc server', grpcServer);
  deps.log.info({ address: grpcServer.address }, 'webhooks listening');
  return {
    grpc: grpcServer,
    seen: () => seen,
    ready: () => readiness.refresh(),
    close: async () => {
      readiness.stop();
      shutdown.abort();
      await lifecycle.close(deps.log);
    },
  };
}

/**
 * Whether a logged event is a status update. The tasks service writes `kind` first, so the prefix answers
 * without parsing the event (an artifact delta's parts included: 5 events per echo send); anything else is
 * parsed.
 */
export function isStatusUpdate(eventJson: string): boolean {
  if (eventJson.startsWith('{"kind":"status-update"')) return true;
  if (eventJson.startsWith('{"kind":"artifact-update"')) return false;
  try {
    return (JSON.parse(eventJson) as { kind?: unknown }).kind === 'status-update';
  } catch {
    return false;
  }
}
