import { createHmac } from 'node:crypto';
import type { Task as V03Task } from '@a2a-js/sdk';
import { Role, TaskState, type Message, type StreamResponse, type Task } from '@a2a-js/sdk-v1';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type CallInterceptor,
  type Client,
} from '@a2a-js/sdk-v1/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v1/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, cardUrl, eventually, sse, textMessage, uniqueId } from '@a2a-inbound/testing';

// A2A 1.0 end to end with the official client, @a2a-js/sdk 1.x (`ClientFactory.createFromUrl` on the agent's
// card, as a new user would), on each binding (JSON-RPC, HTTP+JSON, gRPC), and the 0.3.14 client in the same run.
// Every layout runs it unchanged (`test/e2e/a2a-v1.e2e.test.ts`, `test/distributed/a2a-v1.e2e.test.ts`).

const ECHO = 'demo-echo';
const SLOW = 'demo-slow';
const APPROVAL = 'demo-approval';

const bearer = (key: string): CallInterceptor => ({
  before: async (args) => {
    await Promise.resolve();
    args.options = {
      ...args.options,
      serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${key}` },
    };
  },
  after: async () => Promise.resolve(),
});

function userMessage(parts: Message['parts'], extra: Partial<Message> = {}): Message {
  return {
    messageId: uniqueId('v1'),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}
const text = (value: string): Message['parts'][number] => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
const data = (value: unknown): Message['parts'][number] => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

const answerOf = (t: Task): string | undefined => {
  const c = t.artifacts.find((a) => a.name === 'agent_response')?.parts[0]?.content;
  return c?.$case === 'text' ? c.value : undefined;
};
const asTask = (r: Task | Message): Task => {
  if (!('status' in r)) throw new Error('expected a Task');
  return r;
};
const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED]);
const stateOf = (e: StreamResponse): TaskState | undefined =>
  e.payload?.$case === 'task'
    ? e.payload.value.status?.state
    : e.payload?.$case === 'statusUpdate'
      ? e.payload.value.status?.state
      : undefined;

/** The system under test as the 1.0 suite needs it. */
export interface V1Sut {
  baseUrl: string;
  a2aKey: string;
  /** `host:port` of the A2A 1.0 gRPC service, as the cards give it. */
  grpcAddress: string;
  /** Push delivery to a local receiver, where the layout can route one (APPROVAL has push enabled). */
  push?: {
    hook(path: string): string;
    received(): { path: string; headers: Record<string, string | string[] | undefined>; body: string }[];
  };
  close(): Promise<void>;
}

export function describeA2aV1(layout: string, start: () => Promise<V1Sut>): void {
  describe(`A2A 1.0 with @a2a-js/sdk 1.x (${layout})`, () => {
    let sut: V1Sut;
    let base: string;
    let key: string;

    beforeAll(async () => {
      sut = await start();
      base = sut.baseUrl;
      key = sut.a2aKey;
    }, 180_000);
    afterAll(async () => {
      await sut?.close();
    }, 60_000);

    it('the card declares every interface with its version and stays a 0.3 card', async () => {
      const card = (await (await fetch(cardUrl(base, ECHO))).json()) as Record<string, unknown>;
      expect(card.protocolVersion).toBe('0.3.0');
      expect(card.url).toBe(`${base}/agents/${ECHO}/a2a/v0.3`);
      expect(card.supportedInterfaces).toEqual(
        expect.arrayContaining([
          { url: `${base}/agents/${ECHO}/a2a/v1`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: `${base}/agents/${ECHO}/a2a/v1/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          {
            url: sut.grpcAddress,
            protocolBinding: 'GRPC',
            protocolVersion: '1.0',
            tenant: ECHO,
          },
          { url: `${base}/agents/${ECHO}/a2a/v0.3`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ]),
      );
      // The 0.3 client keeps working against the same card and agent.
      const old = await a2aClient(base, ECHO, key);
      const r = (await old.sendMessage({ message: textMessage('still 0.3') as never })) as { result: V03Task };
      expect(r.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    });

    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
      describe(binding, () => {
        const clientFor = async (agent: string, withKey = key): Promise<Client> => {
          const factory = new ClientFactory(
            ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
              transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
              preferredTransports: [binding],
              clientConfig: { interceptors: [bearer(withKey)] },
            }),
          );
          const client = await factory.createFromUrl(cardUrl(base, agent), '');
          expect(client.transport.protocolName).toBe(binding);
          expect(client.protocolVersion).toBe('1.0');
          return client;
        };

        it('send, get (historyLength) and list (contextId filter, artifacts only when asked)', async () => {
          const client = await clientFor(ECHO);
          const task = asTask(
            await client.sendMessage({ tenant: '', message: userMessage([text(`hi ${binding}`)]) } as never),
          );
          expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
          expect(answerOf(task)).toBe(`hi ${binding}`);
          expect(task.status?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

          const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
          expect(got.id).toBe(task.id);
          expect(got.history).toHaveLength(1);
          expect(answerOf(got)).toBe(`hi ${binding}`);

          const second = asTask(
            await client.sendMessage({
              tenant: '',
              message: userMessage([text('again')], { contextId: task.contextId }),
            } as never),
          );
          const listed = await client.listTasks({
            tenant: '',
            contextId: task.contextId,
            status: TaskState.TASK_STATE_UNSPECIFIED,
            pageSize: 1,
            pageToken: '',
          } as never);
          expect(listed.tasks.map((t) => t.id)).toEqual([second.id]);
          expect(listed.tasks[0]!.artifacts).toEqual([]);
          expect(listed.nextPageToken).not.toBe('');
          const next = await client.listTasks({
            tenant: '',
            contextId: task.contextId,
            status: TaskState.TASK_STATE_UNSPECIFIED,
            pageSize: 5,
            pageToken: listed.nextPageToken,
            includeArtifacts: true,
          } as never);
          expect(next.tasks.map((t) => t.id)).toEqual([task.id]);
          expect(answerOf(next.tasks[0]!)).toBe(`hi ${binding}`);
          expect(next.nextPageToken).toBe('');
          const completed = await client.listTasks({
            tenant: '',
            contextId: task.contextId,
            status: TaskState.TASK_STATE_WORKING,
            pageToken: '',
          } as never);
          expect(completed.tasks).toEqual([]);
        });

        it('stream: the Task first, status and artifact updates, the stream ends at the terminal state', async () => {
          const client = await clientFor(ECHO);
          const events: StreamResponse[] = [];
          for await (const e of client.sendMessageStream({
            tenant: '',
            message: userMessage([text('stream me')]),
          } as never))
            events.push(e);
          expect(events[0]?.payload?.$case).toBe('task');
          expect(events.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);
          expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
        });

        it('cancel a running task (returnImmediately) and subscribe to another until it ends', async () => {
          const client = await clientFor(SLOW);
          const running = asTask(
            await client.sendMessage({
              tenant: '',
              message: userMessage([text('slow'), data({ workMs: 60_000 })]),
              configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true },
            } as never),
          );
          expect(running.status?.state).toBe(TaskState.TASK_STATE_WORKING);
          const canceled = await client.cancelTask({ tenant: '', id: running.id } as never);
          expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
          // A terminal task cannot be subscribed to (UnsupportedOperationError).
          await expect(async () => {
            for await (const _ of client.resubscribeTask({ tenant: '', id: running.id })) void _;
          }).rejects.toThrow();

          const short = asTask(
            await client.sendMessage({
              tenant: '',
              message: userMessage([text('short'), data({ workMs: 800 })]),
              configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true },
            } as never),
          );
          const events: StreamResponse[] = [];
          for await (const e of client.resubscribeTask({ tenant: '', id: short.id })) events.push(e);
          // Spec 3.1.6: "a `Task` object as the first event in the stream", the task as it is on subscription.
          expect(events[0]?.payload?.$case).toBe('task');
          expect(TERMINAL.has(stateOf(events.at(-1)!)!)).toBe(true);
          expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
        });

        it('push config create/get/list/delete, and the push is delivered', async (t) => {
          const push = sut.push;
          if (!push) return t.skip();
          const client = await clientFor(APPROVAL);
          const task = asTask(
            await client.sendMessage({ tenant: '', message: userMessage([text('deploy')]) } as never),
          );
          expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
          const url = push.hook(`/ok-${binding}`);
          const created = await client.createTaskPushNotificationConfig({
            tenant: '',
            id: 'cfg-1',
            taskId: task.id,
            url,
            token: 'push-token-v1',
            // 1.0 takes any HTTP scheme (0.3 only sends Bearer): the push must carry `Basic <credentials>`.
            authentication: { scheme: 'Basic', credentials: 'dXNlcjpwdXNoLXYx' },
          });
          expect(created).toMatchObject({ id: 'cfg-1', taskId: task.id, url, token: '' });
          expect(created.authentication?.scheme).toBe('Basic');
          expect(created.authentication?.credentials || undefined).toBeUndefined(); // write-only
          const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
          expect(got.url).toBe(url);
          // 1.0 makes the token optional (as the TCK sends it): the gateway mints one, answered once so the
          // caller can check X-A2A-Signature, then write-only like a token the caller chose (ADR 0063).
          const mintedUrl = push.hook(`/minted-${binding}`);
          const minted = await client.createTaskPushNotificationConfig({
            tenant: '',
            id: 'cfg-minted',
            taskId: task.id,
            url: mintedUrl,
            token: '',
            authentication: undefined,
          });
          expect(minted).toMatchObject({ id: 'cfg-minted', taskId: task.id, url: mintedUrl });
          expect(minted.token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
          const mintedAgain = await client.getTaskPushNotificationConfig({
            tenant: '',
            taskId: task.id,
            id: 'cfg-minted',
          });
          expect(mintedAgain).toMatchObject({ id: 'cfg-minted', url: mintedUrl, token: '' });
          const listed = await client.listTaskPushNotificationConfig({
            tenant: '',
            taskId: task.id,
            pageSize: 0,
            pageToken: '',
          });
          expect(listed.configs.map((c) => c.id).sort()).toEqual(['cfg-1', 'cfg-minted']);
          expect(listed.configs.every((c) => c.token === '')).toBe(true);

          const done = asTask(
            await client.sendMessage({
              tenant: '',
              message: userMessage([text('approve')], { taskId: task.id }),
            } as never),
          );
          expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
          // The push is in the version the config was created with (1.0 spec 4.3.3): a StreamResponse holding
          // the 1.0 Task, `application/a2a+json`, `Authorization: {scheme} {credentials}`, signed as every push.
          const pushed = (): { headers: Record<string, unknown>; body: string; json: Record<string, unknown> }[] =>
            push
              .received()
              .filter((r) => r.path === `/ok-${binding}`)
              .map((r) => ({ ...r, json: JSON.parse(r.body) as Record<string, unknown> }));
          const completedTask = (j: Record<string, unknown>): boolean =>
            (j.task as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_COMPLETED';
          await eventually(async () => {
            await Promise.resolve();
            return pushed().some((r) => completedTask(r.json));
          }, 20_000);
          const last = pushed().find((r) => completedTask(r.json))!;
          expect(Object.keys(last.json)).toEqual(['task']);
          expect(last.body).not.toContain('"kind"');
          expect(last.json.task).toMatchObject({
            id: task.id,
            contextId: task.contextId,
            status: { state: 'TASK_STATE_COMPLETED' },
            artifacts: [expect.objectContaining({ parts: [expect.objectContaining({ text: expect.any(String) })] })],
          });
          expect(last.headers['content-type']).toBe('application/a2a+json');
          expect(last.headers.authorization).toBe('Basic dXNlcjpwdXNoLXYx');
          expect(last.headers['x-a2a-signature']).toBe(
            createHmac('sha256', 'push-token-v1').update(last.body).digest('hex'),
          );
          // Every push to this 1.0 config is 1.0: the earlier ones (working, input-required) too.
          expect(pushed().every((r) => 'task' in r.json && !('kind' in (r.json.task as object)))).toBe(true);
          // The config without a token: its pushes are signed with the minted one, and carry no Authorization.
          const mintedPush = await eventually(async () => {
            await Promise.resolve();
            return push.received().find((r) => r.path === `/minted-${binding}` && completedTask(JSON.parse(r.body)));
          }, 20_000);
          expect(mintedPush.headers['x-a2a-signature']).toBe(
            createHmac('sha256', minted.token).update(mintedPush.body).digest('hex'),
          );
          expect(mintedPush.headers.authorization).toBeUndefined();

          await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-minted' });
          // Spec 3.1.10: delete is idempotent; 3.1.8: get names its config exactly, even with one left (0.3's get
          // would answer the task's only config).
          await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-minted' });
          await expect(
            client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-minted' }),
          ).rejects.toMatchObject({ name: expect.stringContaining('TaskNotFoundError') });
          await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'cfg-1' });
          const after = await client.listTaskPushNotificationConfig({
            tenant: '',
            taskId: task.id,
            pageSize: 0,
            pageToken: '',
          });
          expect(after.configs).toEqual([]);
        });

        it("a push config sent with the message (SendMessageConfiguration) is the task's from its first event, 1.0 pushes delivered", async (t) => {
          const push = sut.push;
          if (!push) return t.skip();
          const client = await clientFor(APPROVAL);
          const url = push.hook(`/inline-${binding}`);
          // Streamed, the config in SendStreamingMessage; then a reply by SendMessage with a config of its own.
          const events: StreamResponse[] = [];
          for await (const e of client.sendMessageStream({
            tenant: '',
            message: userMessage([text('deploy')]),
            configuration: {
              acceptedOutputModes: [],
              historyLength: undefined,
              returnImmediately: false,
              taskPushNotificationConfig: {
                tenant: '',
                id: 'inline',
                taskId: '', // a2a.proto: "Task id should be empty when sending this configuration"
                url,
                token: 'inline-token',
                authentication: { scheme: 'Bearer', credentials: 'inline-credentials' },
              },
            },
          } as never))
            events.push(e);
          expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
          const taskId = events[0]!.payload?.$case === 'task' ? events[0]!.payload.value.id : '';
          expect(taskId).not.toBe('');
          const at = (path: string): { headers: Record<string, unknown>; body: string; state: string | undefined }[] =>
            push
              .received()
              .filter((r) => r.path === path)
              .map((r) => {
                const json = JSON.parse(r.body) as { task?: { status?: { state?: string } } };
                return { ...r, state: json.task?.status?.state };
              });
          // Pushed while the task waits for its reply: the config was the task's before the send answered.
          await eventually(async () => {
            await Promise.resolve();
            return at(`/inline-${binding}`).some((r) => r.state === 'TASK_STATE_INPUT_REQUIRED');
          }, 20_000);
          const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'inline' });
          expect(got).toMatchObject({ id: 'inline', taskId, url, token: '' });
          // Subscribed while it waits for its reply (spec 3.1.6): the Task first, then followed to its end.
          const subscription = client.resubscribeTask({ tenant: '', id: taskId })[Symbol.asyncIterator]();
          const first = await subscription.next();
          expect(first.value?.payload?.$case).toBe('task');
          expect(stateOf(first.value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
          const followed = (async () => {
            const rest: StreamResponse[] = [];
            for (let e = await subscription.next(); !e.done; e = await subscription.next()) rest.push(e.value);
            return rest;
          })();
          // The reply carries a config of its own, without a token: it joins the continued task (minted token).
          const replyUrl = push.hook(`/inline-reply-${binding}`);
          const done = asTask(
            await client.sendMessage({
              tenant: '',
              message: userMessage([text('approve')], { taskId }),
              configuration: {
                acceptedOutputModes: [],
                historyLength: undefined,
                returnImmediately: false,
                taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: replyUrl, token: '' },
              },
            } as never),
          );
          expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
          expect(stateOf((await followed).at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
          const listed = await client.listTaskPushNotificationConfig({
            tenant: '',
            taskId,
            pageSize: 0,
            pageToken: '',
          });
          // A config without an id is named after its task (as a created one is).
          expect(listed.configs.map((c) => c.id).sort()).toEqual([taskId, 'inline'].sort());
          await eventually(async () => {
            await Promise.resolve();
            return at(`/inline-${binding}`).some((r) => r.state === 'TASK_STATE_COMPLETED');
          }, 20_000);

          for (const r of at(`/inline-${binding}`)) {
            // 1.0 StreamResponse (no 0.3 `kind`), the config's Authorization, signed with its token.
            expect(Object.keys(JSON.parse(r.body) as object)).toEqual(['task']);
            expect(r.body).not.toContain('"kind"');
            expect(r.headers['content-type']).toBe('application/a2a+json');
            expect(r.headers.authorization).toBe('Bearer inline-credentials');
            expect(r.headers['x-a2a-signature']).toBe(
              createHmac('sha256', 'inline-token').update(r.body).digest('hex'),
            );
          }
          const reply = await eventually(async () => {
            await Promise.resolve();
            return at(`/inline-reply-${binding}`).find((r) => r.state === 'TASK_STATE_COMPLETED');
          }, 20_000);
          expect(reply.headers['x-a2a-signature']).toMatch(/^[0-9a-f]{64}$/); // the minted token, never answered
          expect(reply.headers.authorization).toBeUndefined();
        });

        it('a push config sent with the message is checked as a created one: a private receiver is refused, nothing runs', async () => {
          const client = await clientFor(APPROVAL);
          const messageId = uniqueId('v1-inline-refused');
          await expect(
            client.sendMessage({
              tenant: '',
              message: userMessage([text('deploy')], { messageId }),
              configuration: {
                acceptedOutputModes: [],
                historyLength: undefined,
                returnImmediately: false,
                taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: 'https://10.0.0.1/hook', token: '' },
              },
            } as never),
          ).rejects.toThrow(/pushNotificationConfig\.url/);
          // Not consumed: the same messageId without the config starts the task.
          const ok = asTask(
            await client.sendMessage({ tenant: '', message: userMessage([text('deploy')], { messageId }) } as never),
          );
          expect(ok.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
          // An agent without push notifications: PushNotificationNotSupportedError, as CreateTaskPushNotificationConfig.
          const echo = await clientFor(ECHO);
          await expect(
            echo.sendMessage({
              tenant: '',
              message: userMessage([text('x')]),
              configuration: {
                acceptedOutputModes: [],
                historyLength: undefined,
                returnImmediately: false,
                taskPushNotificationConfig: {
                  tenant: '',
                  id: '',
                  taskId: '',
                  url: 'https://hook.public.example/x',
                  token: '',
                },
              },
            } as never),
          ).rejects.toMatchObject({ name: expect.stringContaining('PushNotificationNotSupportedError') });
        });

        it('refuses a wrong key, an unknown task and the extended card as the 1.0 errors', async () => {
          const bad = await clientFor(ECHO, 'a2a_not-a-key');
          await expect(bad.sendMessage({ tenant: '', message: userMessage([text('x')]) } as never)).rejects.toThrow();
          const client = await clientFor(ECHO);
          await expect(
            client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }),
          ).rejects.toMatchObject({
            name: expect.stringContaining('TaskNotFoundError'),
          });
        });
      });
    }

    it('0.3 keeps requiring the push token (product spec: `pushNotificationConfig.token` required), 1.0 mints one', async () => {
      const approval = await a2aClient(base, APPROVAL, key);
      const sent = (await approval.sendMessage({ message: textMessage('deploy') as never })) as { result: V03Task };
      expect(sent.result.status.state).toBe('input-required');
      const set = async (version: string, method: string, params: Record<string, unknown>): Promise<any> =>
        (
          await fetch(`${base}/agents/${APPROVAL}/a2a/${version}`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${key}`,
              'Content-Type': 'application/json',
              ...(version === 'v1' ? { 'A2A-Version': '1.0' } : {}),
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          })
        ).json();
      const url = sut.push?.hook('/v03') ?? 'https://hook.public.example/v03';
      const refused = await set('v0.3', 'tasks/pushNotificationConfig/set', {
        taskId: sent.result.id,
        pushNotificationConfig: { url },
      });
      expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining('token is required') });
      const created = await set('v1', 'CreateTaskPushNotificationConfig', { taskId: sent.result.id, url });
      expect(created.result).toEqual({ id: sent.result.id, taskId: sent.result.id, url, token: expect.any(String) });
      expect(created.result.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('GetExtendedAgentCard: authenticated only, UnsupportedOperationError as the card declares no extended card (spec 3.3.4)', async () => {
      const card = (await (await fetch(cardUrl(base, ECHO))).json()) as { capabilities?: Record<string, unknown> };
      expect(card.capabilities?.extendedAgentCard).toBeUndefined();
      const rpc = async (auth: string): Promise<Response> =>
        fetch(`${base}/agents/${ECHO}/a2a/v1`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${auth}`, 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetExtendedAgentCard', params: {} }),
        });
      expect((await rpc('a2a_not-a-key')).status).toBe(401);
      const answer = (await (await rpc(key)).json()) as { error: { code: number; data: { reason: string }[] } };
      expect(answer.error.code).toBe(-32004);
      expect(answer.error.data[0]?.reason).toBe('UNSUPPORTED_OPERATION');
      const rest = await fetch(`${base}/agents/${ECHO}/a2a/v1/rest/extendedAgentCard`, {
        headers: { Authorization: `Bearer ${key}`, 'A2A-Version': '1.0' },
      });
      expect(rest.status).toBe(400);
      expect(await rest.json()).toMatchObject({
        error: {
          status: 'FAILED_PRECONDITION',
          details: [expect.objectContaining({ reason: 'UNSUPPORTED_OPERATION' })],
        },
      });
    });

    it('JSON-RPC wire: 1.0 shapes, VersionNotSupported (-32009) with ErrorInfo, 0.3 requests and methods refused', async () => {
      const endpoint = `${base}/agents/${ECHO}/a2a/v1`;
      const post = async (body: unknown, version?: string): Promise<any> => {
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
            ...(version === undefined ? {} : { 'A2A-Version': version }),
          },
          body: JSON.stringify(body),
        });
        return res.json();
      };
      const send = {
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { role: 'ROLE_USER', messageId: uniqueId(), parts: [{ text: 'wire' }] } },
      };
      const ok = await post(send, '1.0');
      expect(ok.result.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
      expect(ok.result.task.kind).toBeUndefined();
      expect(ok.result.task.artifacts[0].parts[0]).toEqual({ text: 'wire' });
      expect(ok.result.task.history?.[0]?.role ?? 'ROLE_USER').toBe('ROLE_USER');
      // ProtoJSON parsers take the proto field names too (spec 5.5 follows ProtoJSON): a `context_id` filter
      // filters, it is not dropped as an unknown key.
      const bySnakeCase = await post(
        {
          jsonrpc: '2.0',
          id: 8,
          method: 'ListTasks',
          params: { context_id: ok.result.task.contextId, page_size: 5 },
        },
        '1.0',
      );
      expect(bySnakeCase.result.tasks.map((t: { id: string }) => t.id)).toEqual([ok.result.task.id]);

      // No header means 0.3 (spec 3.6.2): refused in the 0.3 generation's shape, as /a2a refuses 1.0.
      for (const v of [undefined, '0.3'])
        expect((await post(send, v)).error, String(v)).toMatchObject({
          code: -32004,
          data: { code: 'UNSUPPORTED_OPERATION' },
        });
      for (const v of ['1.1', '2.0']) {
        const refused = await post(send, v);
        expect(refused.error.code, String(v)).toBe(-32009);
        expect(refused.error.data[0]).toMatchObject({
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'VERSION_NOT_SUPPORTED',
          domain: 'a2a-protocol.org',
        });
      }
      expect((await post(send, '1.0.1')).result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await post({ ...send, method: 'message/send' }, '1.0')).error.code).toBe(-32004);
      expect((await post({ ...send, method: 'Nope' }, '1.0')).error.code).toBe(-32601);
      const nf = await post({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }, '1.0');
      expect(nf.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
    });

    it('SubscribeToTask resumes after a dropped stream from Last-Event-ID (JSON-RPC and HTTP+JSON)', async () => {
      const v1 = { 'A2A-Version': '1.0' };
      const slowSend = (): Promise<Response> =>
        fetch(`${base}/agents/${SLOW}/a2a/v1/rest/message:send`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/a2a+json', ...v1 },
          body: JSON.stringify({
            message: {
              role: 'ROLE_USER',
              messageId: uniqueId(),
              parts: [{ text: 'slow' }, { data: { workMs: 1500 } }],
            },
            configuration: { returnImmediately: true },
          }),
        });
      const rpcBody = (id: string) => ({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } });
      const bindings = [
        { url: () => `${base}/agents/${SLOW}/a2a/v1`, body: rpcBody, event: (d: any) => d.result },
        {
          url: (id: string) => `${base}/agents/${SLOW}/a2a/v1/rest/tasks/${id}:subscribe`,
          body: () => ({}),
          event: (d: any) => d,
        },
      ];
      for (const b of bindings) {
        const task = ((await (await slowSend()).json()) as { task: { id: string } }).task;
        // The first stream is dropped after its first numbered event.
        const first = await sse(b.url(task.id), b.body(task.id), {
          key,
          headers: v1,
          stopAfter: (f) => (f.id ?? 0) > 0,
        });
        const cut = first.frames.at(-1)!;
        expect(cut.id).toBeGreaterThan(0);
        const rest = await sse(b.url(task.id), b.body(task.id), {
          key,
          headers: { ...v1, 'Last-Event-ID': String(cut.id) },
          stopAfter: (f) => b.event(f.data)?.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED',
        });
        const ids = rest.frames.map((f) => f.id).filter((id): id is number => id !== undefined);
        expect(ids.length).toBeGreaterThan(0);
        expect(Math.min(...ids)).toBeGreaterThan(cut.id!);
        expect(b.event(rest.frames.at(-1)!.data).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      }
    });

    it('the card carries Last-Modified (spec 8.6.1, a MAY the TCK checks), the ETag stays the validator', async () => {
      const res = await fetch(cardUrl(base, ECHO));
      const lastModified = res.headers.get('last-modified');
      expect(lastModified).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(Date.parse(lastModified!)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(lastModified!)).toBeGreaterThan(Date.now() - 24 * 3600_000);
      const again = await fetch(cardUrl(base, ECHO), { headers: { 'If-None-Match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    });

    it('HTTP+JSON and JSON-RPC answers: their Content-Type and length; path and query fields both reach the operation', async () => {
      const rest = `${base}/agents/${ECHO}/a2a/v1/rest`;
      const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
      const message = { role: 'ROLE_USER', messageId: uniqueId(), parts: [{ text: 'written as it is' }] };
      const sent = await fetch(`${rest}/message:send`, { method: 'POST', headers, body: JSON.stringify({ message }) });
      expect(sent.status).toBe(200);
      expect(sent.headers.get('content-type')).toBe('application/a2a+json; charset=utf-8');
      const text = await sent.text();
      expect(Number(sent.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      const task = JSON.parse(text).task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      // The id from the path, historyLength from the query (typed as the proto's integer).
      const got = await fetch(`${rest}/tasks/${encodeURIComponent(task.id)}?historyLength=1`, { headers });
      expect(got.headers.get('content-type')).toBe('application/a2a+json; charset=utf-8');
      const body = (await got.json()) as { id: string; history: unknown[] };
      expect(body.id).toBe(task.id);
      expect(body.history).toHaveLength(1);
      const rpc = await fetch(`${base}/agents/${ECHO}/a2a/v1`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'GetTask', params: { id: task.id } }),
      });
      expect(rpc.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const rpcText = await rpc.text();
      expect(Number(rpc.headers.get('content-length'))).toBe(Buffer.byteLength(rpcText));
      expect(JSON.parse(rpcText)).toMatchObject({ jsonrpc: '2.0', id: 'x', result: { id: task.id } });
    });

    it('HTTP+JSON wire: google.rpc.Status errors, the version as a query parameter', async () => {
      const rest = `${base}/agents/${ECHO}/a2a/v1/rest`;
      const auth = { Authorization: `Bearer ${key}` };
      const nf = await fetch(`${rest}/tasks/nope?A2A-Version=1.0`, { headers: auth });
      expect(nf.status).toBe(404);
      expect(await nf.json()).toMatchObject({
        error: { code: 404, status: 'NOT_FOUND', details: [{ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] },
      });
      const unversioned = await fetch(`${rest}/tasks/nope`, { headers: auth });
      expect(unversioned.status).toBe(400);
      expect(await unversioned.json()).toMatchObject({
        error: { status: 'FAILED_PRECONDITION', details: [{ reason: 'VERSION_NOT_SUPPORTED' }] },
      });
      const noKey = await fetch(`${rest}/tasks?A2A-Version=1.0`);
      expect(noKey.status).toBe(401);
      expect(await noKey.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
      const badPage = await fetch(`${rest}/tasks?A2A-Version=1.0&pageSize=500`, { headers: auth });
      expect(badPage.status).toBe(400);
      expect(await badPage.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    });
  });
}
