import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  InMemoryRateLimiter,
  randomIds,
  systemClock,
} from '@a2a-inbound/ports';
import { tasksV1 } from '@a2a-inbound/proto';
import { grpc } from '@a2a-inbound/runtime';
import { startTasksApp, type TasksApp } from '../../src/app';
import { loadTasksConfig } from '../../src/config';
// @ts-expect-error -- a plain .mjs script (repository tooling)
import { makeDevPki, tlsEnv } from '../../../../scripts/dev-ca.mjs';

/**
 * A team's API key calling TasksService.SendMessage directly (ADR 0032) meets the checks the gateway makes
 * before it forwards a send: the agent running and serving A2A, its rate limit, and the message rules, with the
 * gateway's codes and messages mapped to gRPC statuses. Real gRPC on mutual TLS, in-memory adapters.
 */
describe("a team key's direct sends get the gateway's checks", () => {
  const dir = mkdtempSync(join(tmpdir(), 'team-send-'));
  const pem = (f: string): Buffer => readFileSync(join(dir, f));
  let app: TasksApp;
  let key = '';

  beforeAll(async () => {
    (makeDevPki as (d: string, s: string[]) => void)(dir, ['tasks', 'gateway']);
    const env = (tlsEnv as (d: string, s: string, ms: number) => Record<string, string>)(dir, 'tasks', 60_000);
    app = await startTasksApp(
      {
        store: new InMemoryDocumentStore(),
        blobs: new InMemoryBlobStore(),
        bus: new InMemoryBus(),
        eventLog: new InMemoryEventLog(),
        cache: new InMemoryCache(),
        limiter: new InMemoryRateLimiter({ clock: systemClock }),
        clock: systemClock,
        ids: randomIds,
        log: silentLogger(),
        // File URIs resolve to a public address here (the DNS check itself is the runtime's).
        resolve: async (host) => (host === 'files.internal.example' ? ['10.0.0.7'] : ['93.184.215.14']),
      },
      loadTasksConfig({ TASKS_GRPC_PORT: '0', TASKS_GRPC_HOST: '127.0.0.1', SEED_DEMO: 'true', ...env }),
    );
    key = app.seed!.credentials!.a2aKey;
    const admin = { subscriptionId: 'demo-subscription', role: 'admin' as const };
    await app.control.catalog.updateAgentSettings(admin, 'demo-slow', { status: 'stopped' });
    await app.control.catalog.updateAgentSettings(admin, 'demo-approval', { a2aEnabled: false });
    await app.control.catalog.updateAgentSettings(admin, 'demo-failing', { rateLimitPerMinute: 2 });
    const operator = { subscriptionId: 'demo-subscription', role: 'operator' as const };
    await app.control.catalog.updateAgentSettings(operator, 'demo-echo', { pushNotificationsEnabled: true });
  }, 30_000);
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const send = (
    agentId: string,
    parts: unknown[],
    as: { token?: string; cert?: string } = {},
    files: Partial<tasksV1.FileUpload>[] = [],
    stream = false,
    pushConfig?: Partial<tasksV1.PushConfig>,
  ): Promise<{ code: number; details: string; taskJson?: string }> => {
    const creds = as.cert
      ? grpc.credentials.createSsl(pem('ca.pem'), pem(`${as.cert}-key.pem`), pem(`${as.cert}.pem`))
      : grpc.credentials.createSsl(pem('ca.pem'));
    const client = new tasksV1.TasksServiceClient(app.grpc.address, creds);
    const md = new grpc.Metadata();
    if (as.token ?? key) md.set('authorization', `Bearer ${as.token ?? key}`);
    const request = tasksV1.SendMessageRequest.fromPartial({
      caller: { agentId, protocolVersion: '0.3.0' },
      messageJson: JSON.stringify({ role: 'user', messageId: `t-${randomBytes(4).toString('hex')}`, parts }),
      blocking: false,
      historyLength: 10,
      files,
      ...(pushConfig ? { pushConfig } : {}),
    });
    return new Promise((resolve) => {
      const done = (r: { code: number; details: string; taskJson?: string }): void => {
        client.close();
        resolve(r);
      };
      if (stream) {
        const s = client.sendMessageStream(request, md);
        s.on('data', (e: tasksV1.TaskStreamEvent) => {
          s.cancel();
          done({ code: 0, details: '', taskJson: e.eventJson });
        });
        s.on('error', (e: grpc.ServiceError) => done({ code: e.code, details: e.details }));
        return;
      }
      client.sendMessage(request, md, (e, r) =>
        done(e ? { code: e.code, details: e.details } : { code: 0, details: '', taskJson: r?.taskJson }),
      );
    });
  };
  const text = (t: string) => [{ kind: 'text', text: t }];

  it('accepts a valid send, inline or streamed, with its file bytes inline or beside the message', async () => {
    const ok = await send('demo-echo', text('team send'));
    expect(ok.code, ok.details).toBe(0);
    expect(ok.taskJson).toContain('team send');
    const streamed = await send('demo-echo', text('team stream'), {}, [], true);
    expect(streamed.code, streamed.details).toBe(0);
    expect(streamed.taskJson).toContain('team stream');
    const withFile = await send(
      'demo-echo',
      [...text('a file'), { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: '' } }],
      {},
      [{ partIndex: 1, name: 'a.txt', mimeType: 'text/plain', data: Buffer.from('hello file') }],
    );
    expect(withFile.code, withFile.details).toBe(0);
    // Stored as a reference to the blob, as a gateway send's file is.
    expect(withFile.taskJson).toContain('urn:a2a-inbound:file:');
    expect(withFile.taskJson).toContain('"a2a-inbound/size":10'); // the raw bytes, not the empty inline ones
  });

  it('refuses a stopped agent and an agent without A2A, with the codes the gateway answers', async () => {
    const stopped = await send('demo-slow', text('hi'));
    expect([stopped.code, stopped.details]).toEqual([grpc.status.NOT_FOUND, 'Agent not found']);
    const off = await send('demo-approval', text('hi'));
    expect([off.code, off.details]).toEqual([grpc.status.NOT_FOUND, 'A2A is not enabled for this agent']);
    // A Task Agent is not an A2A agent, whatever its switch says.
    const taskAgent = await send('demo-task-agent', text('hi'));
    expect([taskAgent.code, taskAgent.details]).toEqual([grpc.status.NOT_FOUND, 'A2A is not enabled for this agent']);
  });

  it("counts a team's sends against the agent's rate limit", async () => {
    expect((await send('demo-failing', text('1'))).code).toBe(0);
    expect((await send('demo-failing', text('2'))).code).toBe(0);
    const third = await send('demo-failing', text('3'));
    expect(third.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(third.details).toBe('Rate limit of 2 requests per minute exceeded for this agent');
  });

  it('refuses what the gateway refuses in a message: parts, sizes, types, base64, file URIs, blob ids', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024 + 1);
    const refusals: [unknown[], Partial<tasksV1.FileUpload>[], number, string][] = [
      [[], [], grpc.status.INVALID_ARGUMENT, 'message.parts must not be empty'],
      [
        Array.from({ length: 101 }, () => ({ kind: 'text', text: 'x' })),
        [],
        grpc.status.INVALID_ARGUMENT,
        'message.parts has more than 100 parts',
      ],
      [
        [{ kind: 'file', file: { mimeType: 'text/plain', bytes: 'not base64!' } }],
        [],
        grpc.status.INVALID_ARGUMENT,
        'message.parts[0].file.bytes is not valid base64',
      ],
      [
        [{ kind: 'file', file: { mimeType: 'application/x-msdownload', bytes: 'AAAA' } }],
        [],
        grpc.status.INVALID_ARGUMENT,
        'File type application/x-msdownload is not supported',
      ],
      [
        [{ kind: 'file', file: { mimeType: 'text/plain', bytes: '' } }],
        [{ partIndex: 0, mimeType: 'text/plain', data: big }],
        grpc.status.INVALID_ARGUMENT,
        'message.parts[0].file is larger than 20 MB',
      ],
      [
        [{ kind: 'file', file: { mimeType: 'text/plain', bytes: big.toString('base64') } }],
        [],
        grpc.status.INVALID_ARGUMENT,
        'message.parts[0].file is larger than 20 MB',
      ],
      [
        [{ kind: 'file', file: { mimeType: 'text/plain', uri: 'https://files.internal.example/a.txt' } }],
        [],
        grpc.status.INVALID_ARGUMENT,
        'message.parts[0].file.uri:',
      ],
      [
        [{ kind: 'file', file: { mimeType: 'text/plain', bytes: '' } }],
        [{ partIndex: 0, mimeType: 'text/plain', blobId: 'someone-elses-blob', size: 3, sha256: 'ab' }],
        grpc.status.INVALID_ARGUMENT,
        "files: blob_id is reserved to the gateway; send the file's bytes",
      ],
      [
        text('a text part'),
        [{ partIndex: 0, mimeType: 'text/plain', data: Buffer.from('x') }],
        grpc.status.INVALID_ARGUMENT,
        'file upload for part 0 does not match a file part without bytes',
      ],
    ];
    for (const [parts, files, code, details] of refusals) {
      const r = await send('demo-echo', parts, {}, files);
      expect(r.code, `${details}: ${r.details}`).toBe(code);
      expect(r.details.startsWith(details), r.details).toBe(true);
    }
  }, 60_000);

  it('refuses the push configs the gateway refuses: empty or long token, long id, non-public URL, bad authentication', async () => {
    const task = await send('demo-echo', text('push me'));
    const taskId = (JSON.parse(task.taskJson!) as { id: string }).id;
    const setPush = (config: Partial<tasksV1.PushConfig>): Promise<{ code: number; details: string }> => {
      const client = new tasksV1.TasksServiceClient(app.grpc.address, grpc.credentials.createSsl(pem('ca.pem')));
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${key}`);
      const request = tasksV1.SetPushConfigRequest.fromPartial({
        caller: { agentId: 'demo-echo', protocolVersion: '0.3.0' },
        taskId,
        config: { url: 'https://hooks.example.com/a2a', token: 'a-secret', ...config },
      });
      return new Promise((resolve) =>
        client.setPushConfig(request, md, (e) => {
          client.close();
          resolve(e ? { code: e.code, details: e.details } : { code: 0, details: '' });
        }),
      );
    };
    const ok = await setPush({ id: 'hook-1', authenticationJson: '{"schemes":["Bearer"]}' });
    expect(ok.code, ok.details).toBe(0);
    const refusals: [Partial<tasksV1.PushConfig>, string][] = [
      [{ token: '' }, 'pushNotificationConfig.token is required'],
      [{ token: 'x'.repeat(1025) }, 'pushNotificationConfig.token is required'],
      [{ id: 'i'.repeat(257) }, 'pushNotificationConfig.id must be a string'],
      [{ url: 'http://hooks.example.com/a2a' }, 'pushNotificationConfig.url: url must use https'],
      [{ url: 'https://files.internal.example/a2a' }, 'pushNotificationConfig.url: url must resolve to a public'],
      [{ url: `https://hooks.example.com/${'p'.repeat(1024 * 1024)}` }, 'pushNotificationConfig.url: url is longer'],
      [{ authenticationJson: '{not json' }, 'pushNotificationConfig.authentication is not valid JSON'],
      [{ authenticationJson: '["Bearer"]' }, 'pushNotificationConfig.authentication must be an object'],
      [
        { authenticationJson: JSON.stringify({ credentials: 'c'.repeat(1024 * 1024) }) },
        'pushNotificationConfig.authentication is larger than',
      ],
      [{ protocolVersion: '9.9' }, 'pushNotificationConfig.protocolVersion must be empty or 1.0'],
    ];
    for (const [config, details] of refusals) {
      const r = await setPush(config);
      expect(r.code, `${details}: ${r.details}`).toBe(grpc.status.INVALID_ARGUMENT);
      expect(r.details.startsWith(details), r.details).toBe(true);
    }
  });

  it("a team's send carrying a push config meets SetPushConfig's rules, and its task has the config (ADR 0071)", async () => {
    const config = { id: 'inline', url: 'https://hooks.example.com/a2a', token: 'a-secret', protocolVersion: '1.0' };
    const refused = await send('demo-echo', text('push inline'), {}, [], false, {
      ...config,
      url: 'http://hooks.example.com/a2a',
    });
    expect(refused.code, refused.details).toBe(grpc.status.INVALID_ARGUMENT);
    expect(refused.details.startsWith('pushNotificationConfig.url: url must use https'), refused.details).toBe(true);
    const noToken = await send('demo-echo', text('push inline'), {}, [], false, { ...config, token: '' });
    expect(noToken.details.startsWith('pushNotificationConfig.token is required'), noToken.details).toBe(true);
    const ok = await send('demo-echo', text('push inline'), {}, [], false, config);
    expect(ok.code, ok.details).toBe(0);
    const taskId = (JSON.parse(ok.taskJson!) as { id: string }).id;
    const client = new tasksV1.TasksServiceClient(app.grpc.address, grpc.credentials.createSsl(pem('ca.pem')));
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${key}`);
    const listed = await new Promise<tasksV1.ListPushConfigsResponse | undefined>((resolve) =>
      client.listPushConfigs(
        tasksV1.PushConfigRequest.fromPartial({ caller: { agentId: 'demo-echo', protocolVersion: '0.3.0' }, taskId }),
        md,
        (e, r) => {
          client.close();
          resolve(e ? undefined : r);
        },
      ),
    );
    expect(listed?.configs.map((c) => [c.config?.id, c.config?.url, c.config?.protocolVersion])).toEqual([
      ['inline', 'https://hooks.example.com/a2a', '1.0'],
    ]);
  });

  it("leaves the gateway's own sends to the gateway (it checked them before calling)", async () => {
    // The gateway's certificate on the stopped agent: the policy does not look again (no second lookup, no
    // second rate-limit hit); the tasks service takes the send the gateway decided to forward.
    const viaGateway = await send('demo-slow', text('from the gateway'), { cert: 'gateway', token: '' });
    expect(viaGateway.code, viaGateway.details).not.toBe(grpc.status.NOT_FOUND);
  });
});
