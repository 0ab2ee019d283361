import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { randomBytes, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlV1, linkerV1, tasksV1, webhooksV1 } from '@a2a-inbound/proto';
import { checkHealth, grpc } from '@a2a-inbound/runtime';
import { eventually, rpc, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';
// @ts-expect-error -- a plain .mjs script (repository tooling)
import { issue } from '../../scripts/dev-ca.mjs';

type MtlsCluster = Cluster & {
  pkiDir: string;
  webhooksAddress: string;
  linkerAddress: string;
  linkerServiceToken: string;
};
type Service = grpc.ServiceDefinition;

/**
 * Issue 24 in the distributed mode: every gRPC link on mutual TLS from a dev CA; callers authenticated by their
 * service certificate or a team's bearer credential, actors verified against it (ADR 0032).
 */
describe.runIf(engineUrlsSet)('authenticated gRPC (distributed, mutual TLS)', () => {
  let cluster!: MtlsCluster;
  let sut: Sut;
  const subB = `team-b-${randomBytes(3).toString('hex')}`;
  const adminBToken = `usr_${randomBytes(24).toString('hex')}`;
  let creds: { a2aKey: string; adminToken: string; operatorToken: string };
  let keyB = '';
  const pem = (f: string): Buffer => readFileSync(join(cluster.pkiDir, f));
  /** TLS as a service (its certificate) or as a team (only the CA: it presents a bearer). */
  const tls = (service?: string): grpc.ChannelCredentials =>
    service
      ? grpc.credentials.createSsl(pem('ca.pem'), pem(`${service}-key.pem`), pem(`${service}.pem`))
      : grpc.credentials.createSsl(pem('ca.pem'));
  const bearer = (token?: string): grpc.Metadata => {
    const m = new grpc.Metadata();
    if (token) m.set('authorization', `Bearer ${token}`);
    return m;
  };

  /** One call of any unary or server-streaming RPC; resolves the gRPC status code (0 = OK) and the answer. */
  const invoke = (
    address: string,
    service: Service,
    method: string,
    request: unknown,
    as: { cert?: string; token?: string },
  ): Promise<{ code: number; details: string; response?: unknown }> => {
    // By the definition's key (`getTask`) or the RPC's name (`GetTask`).
    const def = service[method] ?? Object.values(service).find((m) => m.path.endsWith(`/${method}`));
    if (!def) throw new Error(`no method ${method}`);
    const client = new grpc.Client(address, tls(as.cert));
    const message = (def.requestSerialize as (v: unknown) => Buffer)(request);
    const deadline = new Date(Date.now() + 10_000);
    return new Promise((resolve) => {
      const done = (r: { code: number; details: string; response?: unknown }): void => {
        client.close();
        resolve(r);
      };
      const ser = (b: Buffer): Buffer => b;
      const des = (b: Buffer): unknown => (def.responseDeserialize as (b: Buffer) => unknown)(b);
      if (def.responseStream) {
        const stream = client.makeServerStreamRequest(def.path, ser, des, message, bearer(as.token), { deadline });
        stream.on('data', (d: unknown) => {
          stream.cancel();
          done({ code: 0, details: '', response: d });
        });
        stream.on('error', (e: grpc.ServiceError) => done({ code: e.code, details: e.details }));
        stream.on('end', () => done({ code: 0, details: '' }));
      } else {
        client.makeUnaryRequest(def.path, ser, des, message, bearer(as.token), { deadline }, (e, r) =>
          done(e ? { code: e.code, details: e.details } : { code: 0, details: '', response: r }),
        );
      }
    });
  };
  const asJson = (service: Service, method: string, json: Record<string, unknown>): unknown => {
    // The generated messages' fromJSON gives the defaults a request needs to encode.
    const codec =
      REQUEST_CODECS[
        service === tasksV1.TasksServiceService
          ? 'tasks'
          : service === controlV1.ControlPlaneServiceService
            ? 'control'
            : 'webhooks'
      ];
    return codec(method, json);
  };

  const a2aSend = (text: string) =>
    rpc(
      `${sut.baseUrl}/agents/demo-echo/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { role: 'user', messageId: `m-${randomBytes(4).toString('hex')}`, parts: [{ kind: 'text', text }] },
        },
      },
      { key: sut.a2aKey },
    );

  beforeAll(async () => {
    ({ cluster: cluster as Cluster, sut } = (await startDistributed({
      gateways: 1,
      runners: 1,
      mtls: true,
      tlsReloadMs: 300,
      tasksEnv: {
        BOOTSTRAP_ADMIN_EMAIL: 'admin@team-b.example',
        BOOTSTRAP_ADMIN_TOKEN: adminBToken,
        BOOTSTRAP_SUBSCRIPTION_ID: subB,
      },
    })) as unknown as { cluster: MtlsCluster; sut: Sut });
    const c = cluster.credentials();
    creds = { a2aKey: c.a2aKey!, adminToken: c.adminToken!, operatorToken: c.operatorToken! };
    // Team B's own key, made over gRPC with its admin's token (no actor in the request: it comes from the token).
    const made = await invoke(
      cluster.tasksAddress,
      controlV1.ControlPlaneServiceService,
      'CreateKey',
      controlV1.CreateKeyRequest.fromPartial({ name: 'b', scopes: ['a2a'] }),
      { token: adminBToken },
    );
    expect(made.code).toBe(0);
    keyB = (made.response as controlV1.CreateKeyResponse).secret;
  }, 240_000);

  afterAll(async () => {
    await sut?.close();
  });

  it('works end to end over mutual TLS: A2A through the gateway, management, the linker and the delivery log', async () => {
    const send = await a2aSend('over mTLS');
    expect(send.status).toBe(200);
    expect(send.text).toContain('over mTLS');
    const keys = await fetch(`${sut.baseUrl}/api/v1/keys`, {
      headers: { Authorization: `Bearer ${creds.adminToken}` },
    });
    expect(keys.status).toBe(200);
    const apps = await fetch(`${sut.baseUrl}/api/applications`, {
      headers: { Authorization: `Bearer ${creds.adminToken}` },
    });
    expect(apps.status).toBe(200);
    // A push: tasks → bus → webhooks, which reads the task's push targets from tasks (GetPushDelivery) over
    // mutual TLS and logs the delivery; the gateway reads the log from webhooks over mutual TLS.
    const settings = await fetch(`${sut.baseUrl}/api/v1/deployments/demo-deployment/agents/demo-approval/settings`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${creds.operatorToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ pushNotificationsEnabled: true }),
    });
    expect(settings.status, await settings.text()).toBe(200);
    const approval = (method: string, params: unknown) =>
      rpc(`${sut.baseUrl}/agents/demo-approval/a2a`, { jsonrpc: '2.0', id: 2, method, params }, { key: sut.a2aKey });
    const text = (t: string) => ({
      message: { role: 'user', messageId: `p-${randomBytes(4).toString('hex')}`, parts: [{ kind: 'text', text: t }] },
    });
    const first = await approval('message/send', text('deploy v2'));
    const taskId = (first.body as { result?: { id?: string } }).result?.id;
    expect(taskId, first.text).toBeTruthy();
    // A public address that answers nothing here: the delivery is attempted and logged either way.
    const set = await approval('tasks/pushNotificationConfig/set', {
      taskId,
      pushNotificationConfig: { id: 'mtls', url: 'https://192.0.43.10:9/hook', token: randomBytes(16).toString('hex') },
    });
    expect((set.body as { error?: unknown }).error, set.text).toBeUndefined();
    const done = await approval('message/send', { message: { ...text('approve').message, taskId } });
    expect(done.text).toContain('completed');
    await eventually(
      async () => {
        const r = await fetch(`${sut.baseUrl}/api/v1/agents/demo-approval/push-deliveries?limit=100`, {
          headers: { Authorization: `Bearer ${creds.adminToken}` },
        });
        const body = (await r.json()) as { deliveries?: { taskId: string; configId: string }[] };
        return r.status === 200 && (body.deliveries ?? []).some((d) => d.taskId === taskId && d.configId === 'mtls');
      },
      60_000,
      250,
    );
  });

  it('refuses a call without a credential (UNAUTHENTICATED) and keeps health open', async () => {
    for (const [address, service, method, request] of [
      [
        cluster.tasksAddress,
        tasksV1.TasksServiceService,
        'GetTask',
        tasksV1.GetTaskRequest.fromPartial({ taskId: 'x' }),
      ],
      [
        cluster.tasksAddress,
        controlV1.ControlPlaneServiceService,
        'ListKeys',
        controlV1.ListKeysRequest.fromPartial({}),
      ],
      [
        cluster.webhooksAddress,
        webhooksV1.WebhooksServiceService,
        'ListPushDeliveries',
        webhooksV1.ListPushDeliveriesRequest.fromPartial({ agentId: 'demo-echo' }),
      ],
      [
        cluster.linkerAddress,
        linkerV1.LinkerServiceService,
        'ListApplications',
        linkerV1.ListApplicationsRequest.fromPartial({}),
      ],
    ] as const) {
      expect((await invoke(address, service, method, request, {})).code, `${method}`).toBe(grpc.status.UNAUTHENTICATED);
      expect((await invoke(address, service, method, request, { token: 'usr_not-a-real-token' })).code).toBe(
        grpc.status.UNAUTHENTICATED,
      );
    }
    expect(await checkHealth(cluster.tasksAddress, { credentials: tls() })).toBe('SERVING');
    // Plaintext is not spoken at all any more.
    await expect(checkHealth(cluster.tasksAddress, { timeoutMs: 1_000 })).rejects.toThrow();
  });

  it("refuses another service's certificate where that service has no business (PERMISSION_DENIED)", async () => {
    const cases: [string, Service, string, unknown, string][] = [
      [
        cluster.tasksAddress,
        tasksV1.TasksServiceService,
        'GetTask',
        tasksV1.GetTaskRequest.fromPartial({ taskId: 'x' }),
        'runner',
      ],
      [
        cluster.tasksAddress,
        controlV1.ControlPlaneServiceService,
        'ListKeys',
        controlV1.ListKeysRequest.fromPartial({}),
        'webhooks',
      ],
      [
        cluster.tasksAddress,
        controlV1.ControlPlaneServiceService,
        'AuthenticateKey',
        controlV1.AuthenticateKeyRequest.fromPartial({ keyHash: 'ab' }),
        'linker',
      ],
      [
        cluster.tasksAddress,
        tasksV1.TasksServiceService,
        'GetPushDelivery',
        tasksV1.GetPushDeliveryRequest.fromPartial({ taskId: 'x' }),
        'gateway',
      ],
      [
        cluster.webhooksAddress,
        webhooksV1.WebhooksServiceService,
        'ListPushDeliveries',
        webhooksV1.ListPushDeliveriesRequest.fromPartial({ subscriptionId: 'demo-subscription', agentId: 'demo-echo' }),
        'runner',
      ],
      [
        cluster.linkerAddress,
        linkerV1.LinkerServiceService,
        'ListApplications',
        linkerV1.ListApplicationsRequest.fromPartial({}),
        'webhooks',
      ],
    ];
    for (const [address, service, method, request, cert] of cases)
      expect((await invoke(address, service, method, request, { cert })).code, `${cert} → ${method}`).toBe(
        grpc.status.PERMISSION_DENIED,
      );
    // The gateway's own certificate is accepted where it has business.
    const ok = await invoke(
      cluster.tasksAddress,
      controlV1.ControlPlaneServiceService,
      'GetCredits',
      controlV1.GetCreditsRequest.fromPartial({ actor: { role: 'operator', subscriptionId: 'demo-subscription' } }),
      { cert: 'gateway' },
    );
    expect(ok.code).toBe(0);
  });

  it('takes the actor from the credential and refuses a forged one', async () => {
    const listKeys = (actor: Partial<controlV1.ManagementActor> | undefined, token: string) =>
      invoke(
        cluster.tasksAddress,
        controlV1.ControlPlaneServiceService,
        'ListKeys',
        controlV1.ListKeysRequest.fromPartial(actor ? { actor } : {}),
        { token },
      );
    // The operator token, no actor: acts as that operator, in its subscription.
    expect((await listKeys(undefined, creds.operatorToken)).code).toBe(0);
    // A role it does not have, another user, another subscription: refused.
    for (const forged of [{ role: 'admin' }, { userId: 'someone-else' }, { subscriptionId: subB }])
      expect((await listKeys(forged, creds.operatorToken)).code, JSON.stringify(forged)).toBe(
        grpc.status.PERMISSION_DENIED,
      );
    // The operator may not create keys (admin only): the role of the token is what the rules see.
    const create = await invoke(
      cluster.tasksAddress,
      controlV1.ControlPlaneServiceService,
      'CreateKey',
      controlV1.CreateKeyRequest.fromPartial({ name: 'x', scopes: ['a2a'] }),
      { token: creds.operatorToken },
    );
    expect(create.code).toBe(grpc.status.PERMISSION_DENIED);
    // An API key acts as itself on its own agents: SendMessage over gRPC with the caller filled in from the key.
    const send = await invoke(
      cluster.tasksAddress,
      tasksV1.TasksServiceService,
      'SendMessage',
      tasksV1.SendMessageRequest.fromPartial({
        caller: { agentId: 'demo-echo', protocolVersion: '0.3.0' },
        messageJson: JSON.stringify({
          role: 'user',
          messageId: `g-${randomBytes(4).toString('hex')}`,
          parts: [{ kind: 'text', text: 'team call' }],
        }),
        blocking: true,
      }),
      { token: creds.a2aKey },
    );
    expect(send.code, send.details).toBe(0);
    expect((send.response as tasksV1.TaskResponse).taskJson).toContain('team call');
    // The same call naming another key id is a forged caller.
    const forgedKey = await invoke(
      cluster.tasksAddress,
      tasksV1.TasksServiceService,
      'GetTask',
      tasksV1.GetTaskRequest.fromPartial({ caller: { agentId: 'demo-echo', keyId: 'another-key' }, taskId: 'x' }),
      { token: creds.a2aKey },
    );
    expect(forgedKey.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it("never lets team B's credentials read or change subscription A's (every RPC of the three services)", async () => {
    const A = {
      subscriptionId: 'demo-subscription',
      agentId: 'demo-echo',
      deploymentId: 'demo-deployment',
      keyId: '',
      protocolVersion: '0.3.0',
    };
    const rows: { service: Service; method: string; request: unknown; token: string }[] = [];
    for (const method of Object.keys(tasksV1.TasksServiceService)) {
      const def = tasksV1.TasksServiceService[method as keyof typeof tasksV1.TasksServiceService];
      const name = def.path.slice(def.path.lastIndexOf('/') + 1);
      // B's key naming A's subscription, and B's key naming A's agent under its own subscription.
      rows.push({
        service: tasksV1.TasksServiceService,
        method,
        request: asJson(tasksV1.TasksServiceService, name, { caller: A, taskId: 't', agentId: A.agentId }),
        token: keyB,
      });
      rows.push({
        service: tasksV1.TasksServiceService,
        method,
        request: asJson(tasksV1.TasksServiceService, name, { caller: { ...A, subscriptionId: '' }, taskId: 't' }),
        token: keyB,
      });
    }
    for (const method of Object.keys(controlV1.ControlPlaneServiceService)) {
      const def = controlV1.ControlPlaneServiceService[method as keyof typeof controlV1.ControlPlaneServiceService];
      const name = def.path.slice(def.path.lastIndexOf('/') + 1);
      const request = asJson(controlV1.ControlPlaneServiceService, name, {
        actor: { userId: '', role: 'admin', subscriptionId: A.subscriptionId },
        agentId: A.agentId,
        deploymentId: A.deploymentId,
      });
      rows.push({ service: controlV1.ControlPlaneServiceService, method, request, token: adminBToken });
      rows.push({ service: controlV1.ControlPlaneServiceService, method, request, token: keyB });
    }
    rows.push({
      service: webhooksV1.WebhooksServiceService,
      method: 'listPushDeliveries',
      request: webhooksV1.ListPushDeliveriesRequest.fromPartial({
        subscriptionId: A.subscriptionId,
        agentId: A.agentId,
      }),
      token: adminBToken,
    });
    const methods = new Set(rows.map((r) => r.method));
    expect(methods.size).toBe(
      Object.keys(tasksV1.TasksServiceService).length + Object.keys(controlV1.ControlPlaneServiceService).length + 1,
    );
    for (const row of rows) {
      const address =
        row.service === webhooksV1.WebhooksServiceService ? cluster.webhooksAddress : cluster.tasksAddress;
      const r = await invoke(address, row.service, row.method, row.request, { token: row.token });
      expect(r.code, `${row.method} as ${row.token === keyB ? 'key' : 'admin'} of B: ${r.details}`).toBe(
        grpc.status.PERMISSION_DENIED,
      );
    }
    // B's admin on its own subscription is fine (the table above is refused for tenancy, not for being B).
    const own = await invoke(
      cluster.tasksAddress,
      controlV1.ControlPlaneServiceService,
      'ListKeys',
      controlV1.ListKeysRequest.fromPartial({}),
      { token: adminBToken },
    );
    expect(own.code).toBe(0);
  });

  it("records every management change, over REST or gRPC, in the subscription's audit log (admin only)", async () => {
    const name = `audit-${randomBytes(3).toString('hex')}`;
    const rest = await fetch(`${sut.baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${creds.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `${name}-rest`, scope: 'a2a' }),
    });
    expect(rest.status).toBe(201);
    const restKeyId = ((await rest.json()) as { id: string }).id;
    const team = await invoke(
      cluster.tasksAddress,
      controlV1.ControlPlaneServiceService,
      'CreateKey',
      controlV1.CreateKeyRequest.fromPartial({ name: `${name}-grpc`, scopes: ['a2a'] }),
      { token: creds.adminToken },
    );
    expect(team.code).toBe(0);
    const teamKeyId = (team.response as controlV1.CreateKeyResponse).key!.id;
    type Event = {
      operation: string;
      via: string;
      userId: string | null;
      role: string | null;
      target: string;
      at: string;
    };
    const events = async (token: string): Promise<{ status: number; events: Event[] }> => {
      const r = await fetch(`${sut.baseUrl}/api/v1/audit-events?limit=100`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      return { status: r.status, events: r.status === 200 ? ((await r.json()) as { events: Event[] }).events : [] };
    };
    const a = await events(creds.adminToken);
    expect(a.status).toBe(200);
    const viaRest = a.events.find((e) => e.target.includes(`id=${restKeyId}`));
    const viaGrpc = a.events.find((e) => e.target.includes(`id=${teamKeyId}`));
    expect(viaRest).toMatchObject({ operation: 'CreateKey', via: 'gateway', role: 'admin' });
    expect(viaGrpc).toMatchObject({ operation: 'CreateKey', via: 'team', role: 'admin' });
    expect(viaRest!.userId).toBeTruthy();
    expect(viaGrpc!.userId).toBe(viaRest!.userId);
    expect(Date.parse(viaGrpc!.at)).toBeGreaterThanOrEqual(Date.parse(viaRest!.at));
    expect(a.events.indexOf(viaGrpc!)).toBeLessThan(a.events.indexOf(viaRest!)); // newest first
    // Only the admin reads it; another subscription's admin sees its own changes, never A's.
    expect((await events(creds.operatorToken)).status).toBe(403);
    const b = await events(adminBToken);
    expect(b.status).toBe(200);
    expect(b.events.some((e) => e.operation === 'CreateKey' && e.via === 'team')).toBe(true);
    expect(JSON.stringify(b.events)).not.toContain(restKeyId);
    expect(JSON.stringify(b.events)).not.toContain(teamKeyId);
  });

  it('serves a rotated certificate without a restart', async () => {
    const serial = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const [host, port] = cluster.tasksAddress.split(':');
        const s = connect(
          { host, port: Number(port), ca: pem('ca.pem'), ALPNProtocols: ['h2'], servername: 'localhost' },
          () => {
            resolve(s.getPeerCertificate().serialNumber);
            s.destroy();
          },
        );
        s.on('error', reject);
      });
    const before = await serial();
    const pid = (cluster.procs.get('tasks') as unknown as { child: { pid: number } }).child.pid;
    (issue as (caDir: string, service: string) => void)(cluster.pkiDir, 'tasks');
    const written = new X509Certificate(pem('tasks.pem')).serialNumber;
    expect(written).not.toBe(before);
    await eventually(async () => (await serial()) === written, 10_000, 100);
    expect((cluster.procs.get('tasks') as unknown as { child: { pid: number } }).child.pid).toBe(pid);
    expect(cluster.procs.get('tasks')!.exited).toBe(false);
    // And the services keep working on it: a new send through the gateway.
    const send = await a2aSend('after rotation');
    expect(send.text).toContain('after rotation');
  });
});

/** Request messages by RPC name, from JSON with the defaults filled in (unknown fields are ignored). */
const REQUEST_CODECS: Record<
  'tasks' | 'control' | 'webhooks',
  (rpc: string, json: Record<string, unknown>) => unknown
> = {
  tasks: (rpc, json) => codecOf(tasksV1, rpc).fromJSON(json),
  control: (rpc, json) => codecOf(controlV1, rpc).fromJSON(json),
  webhooks: (rpc, json) => codecOf(webhooksV1, rpc).fromJSON(json),
};

function codecOf(pkg: object, rpc: string): { fromJSON(o: unknown): unknown } {
  const service = Object.values(pkg).find(
    (v): v is Service =>
      typeof v === 'object' &&
      v !== null &&
      Object.values(v as object).some((m) => (m as { path?: string })?.path?.endsWith(`/${rpc}`)),
  );
  const def = Object.values(service ?? {}).find((m) => (m as { path: string }).path.endsWith(`/${rpc}`)) as
    { requestDeserialize: (b: Buffer) => unknown } | undefined;
  if (!def) throw new Error(`no RPC ${rpc}`);
  // The deserialiser of an empty buffer is the message with its defaults; the JSON fields are merged onto it.
  return { fromJSON: (o) => Object.assign(def.requestDeserialize(Buffer.alloc(0)) as object, o) };
}
