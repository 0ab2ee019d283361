import type { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { A2AClient } from '@a2a-js/sdk/client';
import type { Resolver } from '@a2a-inbound/runtime';
import {
  a2aClient,
  cardUrl,
  eventually,
  manage,
  rpc,
  sse,
  textMessage,
  uniqueId,
  type RpcAnswer,
  type SseFrame,
  type Sut,
} from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The conformance suite of issue 4: one named test per row of the tables of
 * `shared/spec/a2a-inbound-service.md` (JSON-RPC methods and their rules, Errors, HTTP-level refusals, States and
 * transitions, Limits, Authentication, Versioning, Agent card), through @a2a-js/sdk 0.3.14 where the SDK can
 * express the call and raw HTTP everywhere. Test names quote the spec row they check. Tests that change settings
 * use agents of their own (created through the control plane) so that every test stands alone.
 */

const ECHO = 'demo-echo';
const APPROVAL = 'demo-approval';
const FAILING = 'demo-failing';
const TASK_AGENT = 'demo-task-agent';
const DEPLOYMENT = 'demo-deployment';
const MB20 = 20 * 1024 * 1024;

/**
 * DNS of the conformance runs (no network needed): `*.public.example` resolves to a public address,
 * `*.private.example` to a private one, `*.metadata.example` to the cloud metadata address; the rest does not resolve.
 */
export const conformanceResolver: Resolver = async (host) => {
  await Promise.resolve();
  if (host.endsWith('.public.example')) return ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'];
  if (host.endsWith('.private.example')) return ['93.184.216.34', '10.1.2.3'];
  if (host.endsWith('.metadata.example')) return ['169.254.169.254'];
  throw new Error(`getaddrinfo ENOTFOUND ${host}`);
};

type Answer = RpcAnswer & { id: string; method?: string; frames?: SseFrame[] };
type StreamEvent = TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
type StreamResult = Task | StreamEvent;

/** The task a stream frame is about: the Task snapshot (first frame of message/stream) or an update event. */
const taskIdOf = (e: StreamResult): string => (e.kind === 'task' ? e.id : e.taskId);

const STREAMING_METHODS = new Set(['message/stream', 'tasks/resubscribe']);

/** The frames of a complete SSE body (`id:` and `data:` lines). */
function framesOfText(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const raw of text.split('\n\n')) {
    const frame: SseFrame = { data: undefined };
    const data: string[] = [];
    for (const line of raw.split('\n')) {
      if (line.startsWith('id:')) frame.id = Number(line.slice(3).trim());
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0) continue;
    frame.data = JSON.parse(data.join('\n'));
    frames.push(frame);
  }
  return frames;
}

const textOfParts = (parts: readonly { kind: string; text?: string }[] | undefined): string =>
  (parts ?? []).map((p) => (p.kind === 'text' ? (p.text ?? '') : '')).join('');

const answerText = (task: Task): string => textOfParts(task.artifacts?.find((a) => a.name === 'agent_response')?.parts);

const message = (parts: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'message',
  role: 'user',
  messageId: uniqueId(),
  parts,
  ...extra,
});

const bytesPart = (name: string, mimeType: string, content: Buffer | string): Record<string, unknown> => ({
  kind: 'file',
  file: { name, mimeType, bytes: Buffer.from(content).toString('base64') },
});

/**
 * The rate limiter counts in fixed one-minute windows: a test that counts requests waits out the last two
 * seconds of a window so that its requests all land in one (a rare wait of at most 2 s, never a flake).
 */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 2_000) await new Promise((r) => setTimeout(r, left + 50));
}

const uriPart = (name: string, mimeType: string, uri: string): Record<string, unknown> => ({
  kind: 'file',
  file: { name, mimeType, uri },
});

export interface ConformanceOptions {
  /**
   * Whether the layout's gateways resolve with {@link conformanceResolver} (in-process layouts inject it). When
   * not, URLs that must pass the public-address check use a public IP literal, which needs no DNS, and the
   * names meant to resolve privately are refused because they do not resolve at all.
   */
  stubbedDns: boolean;
}

export function describeConformance(
  layout: string,
  start: () => Promise<Sut>,
  options: ConformanceOptions = { stubbedDns: true },
): void {
  /** A host that passes the public-address check in this layout. */
  const pub = (label: string): string => (options.stubbedDns ? `${label}.public.example` : '93.184.216.34');

  describe(`A2A conformance (${layout})`, () => {
    let sut: Sut;
    let base: string;
    /** Another gateway replica when the layout has one, else the same. */
    let other: string;
    let rpcSeq = 0;

    beforeAll(async () => {
      sut = await start();
      base = sut.baseUrl;
      other = sut.otherBaseUrls[0] ?? sut.baseUrl;
    }, 180_000);
    afterAll(async () => {
      await sut?.close();
    }, 60_000);

    const ep = (agent: string, path = ''): string => `${base}/agents/${agent}/a2a${path}`;

    async function call(
      agent: string,
      method: string,
      params?: unknown,
      o: { key?: string | null; path?: string; headers?: Record<string, string>; url?: string } = {},
    ): Promise<Answer> {
      const id = `conf-${(rpcSeq += 1)}`;
      const body: Record<string, unknown> = { jsonrpc: '2.0', id, method };
      if (params !== undefined) body.params = params;
      const r = await rpc(o.url ?? ep(agent, o.path), body, {
        key: o.key === null ? undefined : (o.key ?? sut.a2aKey),
        headers: o.headers ?? {},
      });
      // A streaming method answers SSE, refusals included (one error frame): its body is that frame.
      if (/^text\/event-stream/.test(r.headers.get('content-type') ?? '')) {
        const frames = framesOfText(r.text);
        return { ...r, body: frames.length === 1 ? frames[0]!.data : undefined, frames, id, method };
      }
      return { ...r, id, method };
    }

    /**
     * A JSON-RPC error answer: HTTP 200 (unless an HTTP-level refusal), jsonrpc 2.0, the id echoed; JSON, or
     * for a refused `message/stream` / `tasks/resubscribe` an SSE stream of exactly one error frame (what the
     * streaming SDK clients read). HTTP-level refusals are JSON for every method.
     */
    function expectError(
      r: Answer,
      code: number,
      o: { dataCode?: string; status?: number; echoId?: boolean } = {},
    ): void {
      expect(r.status, r.text).toBe(o.status ?? 200);
      const streamed = STREAMING_METHODS.has(r.method ?? '') && (o.status ?? 200) === 200;
      expect(r.headers.get('content-type')).toMatch(streamed ? /^text\/event-stream/ : /^application\/json/);
      if (streamed) expect(r.frames, r.text).toHaveLength(1);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code, message: expect.any(String) } });
      expect(Number.isInteger(r.body.error.code)).toBe(true);
      expect(r.body.result).toBeUndefined();
      if (o.dataCode) expect(r.body.error.data?.code).toBe(o.dataCode);
      if (o.echoId ?? (o.status ?? 200) === 200) expect(r.body.id).toBe(r.id);
    }

    function resultOf<T = Task>(r: Answer): T {
      expect(r.status, r.text).toBe(200);
      expect(r.body?.error, r.text).toBeUndefined();
      expect(r.body.jsonrpc).toBe('2.0');
      expect(r.body.id).toBe(r.id);
      return r.body.result as T;
    }

    const send = async (
      agent: string,
      msg: Record<string, unknown>,
      configuration?: Record<string, unknown>,
      o: { path?: string; url?: string } = {},
    ): Promise<Answer> => call(agent, 'message/send', { message: msg, ...(configuration ? { configuration } : {}) }, o);

    const sendOk = async (
      agent: string,
      msg: Record<string, unknown>,
      configuration?: Record<string, unknown>,
    ): Promise<Task> => resultOf(await send(agent, msg, configuration));

    const getTask = async (agent: string, id: string, historyLength?: number): Promise<Task> =>
      resultOf(await call(agent, 'tasks/get', { id, ...(historyLength === undefined ? {} : { historyLength }) }));

    const waitForState = async (agent: string, id: string, state: string): Promise<Task> =>
      eventually(
        async () => {
          const t = await getTask(agent, id);
          return t.status.state === state ? t : undefined;
        },
        15_000,
        25,
      );

    const streamOf = async (
      agent: string,
      method: string,
      params: unknown,
      o: { url?: string; headers?: Record<string, string>; stopAfter?: (f: SseFrame, all: SseFrame[]) => boolean } = {},
    ): Promise<{ status: number; contentType: string | null; frames: SseFrame[]; id: string }> => {
      const id = `conf-${(rpcSeq += 1)}`;
      const r = await sse(
        o.url ?? ep(agent),
        { jsonrpc: '2.0', id, method, params },
        {
          key: sut.a2aKey,
          ...(o.headers ? { headers: o.headers } : {}),
          ...(o.stopAfter ? { stopAfter: o.stopAfter } : {}),
        },
      );
      return { ...r, id };
    };

    const admin = (op: string, params: Record<string, unknown>): Promise<any> => manage(sut, 'admin', op, params);
    const operator = (op: string, params: Record<string, unknown>): Promise<any> => manage(sut, 'operator', op, params);
    const settings = (
      agentId: string,
      s: Record<string, unknown>,
      role: 'admin' | 'operator' = 'admin',
    ): Promise<any> => manage(sut, role, 'settings.update', { agentId, settings: s });

    /** A fresh AI Agent of its own in the demo deployment, A2A on: settings changes affect nobody else. */
    async function freshAgent(
      label: string,
      runtime = 'demo:echo',
      o: { runtimeConfig?: Record<string, unknown>; settings?: Record<string, unknown>; push?: boolean } = {},
    ): Promise<string> {
      const a = await admin('agents.create', {
        name: `Conformance ${label}`,
        description: `Conformance test agent (${label})`,
        type: 'AI Agent',
        skills: [
          {
            id: 'conf',
            name: 'Conformance',
            description: `Runs ${runtime}`,
            tags: ['conformance'],
            examples: ['hello'],
          },
        ],
      });
      const agentId = String(a.id);
      await admin('agents.publishVersion', {
        agentId,
        version: '1.0.0',
        runtime,
        runtimeConfig: o.runtimeConfig ?? {},
      });
      await admin('agents.promote', { agentId, version: '1.0.0' });
      await admin('deployments.addAgent', { deploymentId: DEPLOYMENT, agentId });
      await settings(agentId, { a2aEnabled: true, ...(o.settings ?? {}) });
      if (o.push) await settings(agentId, { pushNotificationsEnabled: true }, 'operator');
      return agentId;
    }

    const slowMessage = (workMs: number, text = 'slow work'): Record<string, unknown> =>
      message([
        { kind: 'text', text },
        { kind: 'data', data: { workMs } },
      ]);

    /** A running task on a slow agent of its own (blocking: false). */
    async function runningSlowTask(agent: string, workMs: number): Promise<Task> {
      const t = await sendOk(agent, slowMessage(workMs), { blocking: false });
      expect(t.status.state).toBe('working');
      return t;
    }

    const expiringKey = (() => {
      let p: Promise<string> | undefined;
      return (): Promise<string> =>
        (p ??= (async () => {
          const k = await manage(sut, 'developer', 'keys.create', {
            name: 'expiring',
            scopes: ['a2a'],
            expiresAt: new Date(Date.now() + 800).toISOString(),
          });
          return String(k.key);
        })());
    })();

    // ---------------------------------------------------------------------------------------------------------
    describe('JSON-RPC methods', () => {
      it('message/send | `message` (Message, required); `configuration` (optional: `historyLength`, `blocking`) | Task. Blocks until the agent answers', async () => {
        const client = await a2aClient(base, ECHO, sut.a2aKey);
        const res = await client.sendMessage({
          message: textMessage('conformance send') as never,
          configuration: { blocking: true, historyLength: 5 },
        });
        const task = (res as { result: Task }).result;
        expect(task).toMatchObject({
          kind: 'task',
          id: expect.any(String),
          contextId: expect.any(String),
          status: { state: 'completed', timestamp: expect.any(String) },
        });
        expect(answerText(task)).toBe('conformance send');
        expect(task.history?.[0]?.parts).toEqual([{ kind: 'text', text: 'conformance send' }]);
        const raw = resultOf(await send(ECHO, textMessage('raw send')));
        expect(raw.status.state).toBe('completed');
        expect(answerText(raw)).toBe('raw send');
      });

      it('message/stream | same as message/send | SSE frames: each `data:` line is a JSON-RPC envelope whose `result` is a streaming event', async () => {
        const r = await streamOf(ECHO, 'message/stream', { message: textMessage('stream me please') });
        expect(r.status).toBe(200);
        expect(r.contentType).toMatch(/^text\/event-stream/);
        expect(r.frames.length).toBeGreaterThan(2);
        for (const f of r.frames) expect(f.data).toMatchObject({ jsonrpc: '2.0', id: r.id });
        // The Task as accepted first (as the SDKs and A2A 1.0 do), then status and artifact updates.
        expect(r.frames[0]!.data.result).toMatchObject({
          kind: 'task',
          id: expect.any(String),
          contextId: expect.any(String),
          status: { state: 'working' },
          artifacts: [],
        });
        for (const f of r.frames.slice(1)) expect(['status-update', 'artifact-update']).toContain(f.data.result.kind);
        const client = await a2aClient(base, ECHO, sut.a2aKey);
        const events: StreamResult[] = [];
        for await (const e of client.sendMessageStream({ message: textMessage('sdk stream') as never }))
          events.push(e as StreamResult);
        expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'working' } });
        expect(events[1]).toMatchObject({ kind: 'status-update', taskId: taskIdOf(events[0]!), final: false });
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      });

      it('tasks/get | `id` (task id, required); `historyLength` (integer, optional) | Task', async () => {
        const sent = await sendOk(ECHO, textMessage('get me'));
        const client = await a2aClient(base, ECHO, sut.a2aKey);
        const got = (await client.getTask({ id: sent.id })) as { result: Task };
        expect(got.result).toMatchObject({
          kind: 'task',
          id: sent.id,
          contextId: sent.contextId,
          status: { state: 'completed' },
        });
        expect(got.result.history).toBeUndefined();
        const withHistory = (await client.getTask({ id: sent.id, historyLength: 1 })) as { result: Task };
        expect(withHistory.result.history).toHaveLength(1);
        expectError(await call(ECHO, 'tasks/get', {}), -32602);
        expectError(await call(ECHO, 'tasks/get', { id: 42 }), -32602);
      });

      it('tasks/cancel | `id` (task id) | Task; error -32002 when already finished', async () => {
        const slow = await freshAgent('cancel', 'demo:slow');
        const running = await runningSlowTask(slow, 20_000);
        const client = await a2aClient(base, slow, sut.a2aKey);
        const canceled = (await client.cancelTask({ id: running.id })) as { result: Task };
        expect(canceled.result).toMatchObject({ kind: 'task', id: running.id, status: { state: 'canceled' } });
        const again = (await client.cancelTask({ id: running.id })) as { error: { code: number } };
        expect(again.error.code).toBe(-32002);
      });

      it('tasks/resubscribe | `id` (task id) | SSE: replays missed events, then live events', async () => {
        const slow = await freshAgent('resubscribe-sdk', 'demo:slow');
        const running = await runningSlowTask(slow, 700);
        const client = await a2aClient(base, slow, sut.a2aKey);
        const events: StreamEvent[] = [];
        for await (const e of client.resubscribeTask({ id: running.id })) events.push(e as StreamEvent);
        // Replayed: the first `working` event of the task, though it was emitted before the resubscribe.
        expect(events[0]).toMatchObject({
          kind: 'status-update',
          taskId: running.id,
          status: { state: 'working' },
          final: false,
        });
        const deltas = events.filter((e): e is TaskArtifactUpdateEvent => e.kind === 'artifact-update');
        expect(deltas.map((d) => textOfParts(d.artifact.parts)).join('')).toBe('Finished after 700 ms: slow work');
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      });

      it('tasks/pushNotificationConfig/set | `taskId`; `pushNotificationConfig` (`url`, `token`) | stored config (token omitted)', async () => {
        const agent = await freshAgent('push-set', 'demo:echo', { push: true });
        const task = await sendOk(agent, textMessage('push me'));
        const client = await a2aClient(base, agent, sut.a2aKey);
        const r = (await client.setTaskPushNotificationConfig({
          taskId: task.id,
          pushNotificationConfig: { id: 'primary', url: `https://${pub('hooks')}/a2a`, token: 'secret-token-1' },
        })) as unknown as { result: { taskId: string; pushNotificationConfig: Record<string, unknown> } };
        expect(r.result).toEqual({
          taskId: task.id,
          pushNotificationConfig: { id: 'primary', url: `https://${pub('hooks')}/a2a` },
        });
        expect(JSON.stringify(r)).not.toContain('secret-token-1');
        // Raw: without an id the config gets one.
        const raw = resultOf<{ taskId: string; pushNotificationConfig: { id: string; url: string } }>(
          await call(agent, 'tasks/pushNotificationConfig/set', {
            taskId: task.id,
            pushNotificationConfig: { url: `https://${pub('other')}/hook`, token: 't2' },
          }),
        );
        expect(raw.pushNotificationConfig.id).toEqual(expect.any(String));
        expect(raw.pushNotificationConfig).not.toHaveProperty('token');
        expectError(
          await call(agent, 'tasks/pushNotificationConfig/set', {
            taskId: task.id,
            pushNotificationConfig: { url: `https://${pub('hooks')}/a2a` },
          }),
          -32602,
        );
        expectError(
          await call(agent, 'tasks/pushNotificationConfig/set', {
            taskId: uniqueId('task'),
            pushNotificationConfig: { url: `https://${pub('hooks')}/a2a`, token: 't' },
          }),
          -32001,
        );
      });

      it('tasks/pushNotificationConfig/get | (params `id`, optional `pushNotificationConfigId`) | config without token', async () => {
        const agent = await freshAgent('push-get', 'demo:echo', { push: true });
        const task = await sendOk(agent, textMessage('push get'));
        const client = await a2aClient(base, agent, sut.a2aKey);
        await client.setTaskPushNotificationConfig({
          taskId: task.id,
          pushNotificationConfig: { id: 'only', url: `https://${pub('hooks')}/get`, token: 'never-returned' },
        });
        const byTask = (await client.getTaskPushNotificationConfig({ id: task.id })) as { result: unknown };
        expect(byTask.result).toEqual({
          taskId: task.id,
          pushNotificationConfig: { id: 'only', url: `https://${pub('hooks')}/get` },
        });
        // The SDK's A2AClient takes only {id}; the 0.3 params {id, pushNotificationConfigId} go raw.
        const byId = {
          result: resultOf(
            await call(agent, 'tasks/pushNotificationConfig/get', { id: task.id, pushNotificationConfigId: 'only' }),
          ),
        };
        expect(byId.result).toEqual(byTask.result);
        expect(JSON.stringify([byTask, byId])).not.toContain('never-returned');
      });

      it('tasks/pushNotificationConfig/list | (params `id`) | list of configs', async () => {
        const agent = await freshAgent('push-list', 'demo:echo', { push: true });
        const task = await sendOk(agent, textMessage('push list'));
        for (const id of ['a', 'b']) {
          resultOf(
            await call(agent, 'tasks/pushNotificationConfig/set', {
              taskId: task.id,
              pushNotificationConfig: { id, url: `https://${pub(id)}/hook`, token: `tok-${id}` },
            }),
          );
        }
        const client = await a2aClient(base, agent, sut.a2aKey);
        const list = (await client.listTaskPushNotificationConfig({ id: task.id })) as {
          result: { taskId: string; pushNotificationConfig: { id: string; url: string } }[];
        };
        expect(list.result.map((c) => c.pushNotificationConfig.id).sort()).toEqual(['a', 'b']);
        expect(list.result.every((c) => c.taskId === task.id)).toBe(true);
        expect(JSON.stringify(list)).not.toContain('tok-');
      });

      it('tasks/pushNotificationConfig/set, get, list | `authentication.credentials` is write-only like the token', async () => {
        const agent = await freshAgent('push-creds', 'demo:echo', { push: true });
        const task = await sendOk(agent, textMessage('push creds'));
        const cfg = {
          id: 'auth',
          url: `https://${pub('creds')}/hook`,
          token: 'tok-creds',
          authentication: { schemes: ['Bearer'], credentials: 'cred-secret-789' },
        };
        const answers = [
          await call(agent, 'tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: cfg }),
          await call(agent, 'tasks/pushNotificationConfig/get', { id: task.id, pushNotificationConfigId: 'auth' }),
          await call(agent, 'tasks/pushNotificationConfig/list', { id: task.id }),
        ];
        for (const answer of answers) {
          const text = JSON.stringify(resultOf(answer));
          expect(text).not.toContain('cred-secret-789');
          expect(text).not.toContain('tok-creds');
          expect(text).toContain('"schemes":["Bearer"]');
        }
      });

      it('tasks/pushNotificationConfig/delete | (params `id`, `pushNotificationConfigId`) | deletes the config', async () => {
        const agent = await freshAgent('push-delete', 'demo:echo', { push: true });
        const task = await sendOk(agent, textMessage('push delete'));
        for (const id of ['keep', 'drop']) {
          resultOf(
            await call(agent, 'tasks/pushNotificationConfig/set', {
              taskId: task.id,
              pushNotificationConfig: { id, url: `https://${pub(id)}/hook`, token: 't' },
            }),
          );
        }
        const client = await a2aClient(base, agent, sut.a2aKey);
        const del = (await client.deleteTaskPushNotificationConfig({
          id: task.id,
          pushNotificationConfigId: 'drop',
        })) as { result: unknown; error?: unknown };
        expect(del.error).toBeUndefined();
        expect(del.result).toBeNull();
        const list = resultOf<{ pushNotificationConfig: { id: string } }[]>(
          await call(agent, 'tasks/pushNotificationConfig/list', { id: task.id }),
        );
        expect(list.map((c) => c.pushNotificationConfig.id)).toEqual(['keep']);
        // Push is on for this agent, so an inline config is not "unsupported" (-32003) but refused as params.
        expectError(
          await send(agent, textMessage('inline'), {
            pushNotificationConfig: { url: `https://${pub('h')}/x`, token: 't' },
          }),
          -32602,
        );
        expectError(
          await call(agent, 'tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: 'drop' }),
          -32602,
        );
      });

      it('agent/getAuthenticatedExtendedCard | | always error -32007 (not configured)', async () => {
        expectError(await call(ECHO, 'agent/getAuthenticatedExtendedCard'), -32007, {
          dataCode: 'EXTENDED_CARD_NOT_CONFIGURED',
        });
        expectError(await call(ECHO, 'agent/getAuthenticatedExtendedCard', {}, { path: '/v0.3' }), -32007);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Rules for message/send and message/stream', () => {
      it('1. `messageId` is required and must be unique per request', async () => {
        const noId = message([{ kind: 'text', text: 'x' }]);
        delete noId.messageId;
        expectError(await send(ECHO, noId), -32602);
        expectError(await send(ECHO, { ...noId, messageId: '' }), -32602);
        expectError(await send(ECHO, { ...noId, messageId: 7 }), -32602);
        // Reusing a messageId is not a new request: the stored task comes back (see Idempotency).
        const msg = textMessage('unique');
        const a = await sendOk(ECHO, msg);
        const b = await sendOk(ECHO, msg);
        expect(b.id).toBe(a.id);
        const c = await sendOk(ECHO, textMessage('unique'));
        expect(c.id).not.toBe(a.id);
      });

      it('2. `parts` must be non-empty', async () => {
        expectError(await send(ECHO, message([])), -32602);
        const noParts = message([]);
        delete noParts.parts;
        expectError(await send(ECHO, noParts), -32602);
        // A refused stream is a stream of one JSON-RPC error frame (no task, no event).
        const r = await streamOf(ECHO, 'message/stream', { message: message([]) });
        expect(r.contentType).toMatch(/^text\/event-stream/);
        expect(r.frames).toEqual([
          { data: { jsonrpc: '2.0', id: r.id, error: expect.objectContaining({ code: -32602 }) } },
        ]);
        const raw = await call(ECHO, 'message/stream', { message: message([]) });
        expectError(raw, -32602);
      });

      it('3. Same `contextId` on later sends keeps conversation memory', async () => {
        const first = await sendOk(ECHO, textMessage('my favourite colour is teal'));
        const second = await sendOk(ECHO, textMessage('what did I say?', { contextId: first.contextId }));
        expect(second.id).not.toBe(first.id);
        expect(second.contextId).toBe(first.contextId);
        expect(answerText(second)).toBe('You said: my favourite colour is teal');
        const fresh = await sendOk(ECHO, textMessage('what did I say?'));
        expect(answerText(fresh)).toBe('You have not said anything yet in this conversation.');
        const client = await a2aClient(base, ECHO, sut.a2aKey);
        const events: StreamEvent[] = [];
        for await (const e of client.sendMessageStream({
          message: textMessage('what did I say?', { contextId: first.contextId }) as never,
        }))
          events.push(e as StreamEvent);
        const streamed = events
          .filter((e): e is TaskArtifactUpdateEvent => e.kind === 'artifact-update')
          .map((e) => textOfParts(e.artifact.parts))
          .join('');
        expect(streamed).toContain('You said: ');
      });

      it('4. A `taskId` in the message continues that task', async () => {
        const first = await sendOk(APPROVAL, textMessage('rotate the keys'));
        expect(first.status.state).toBe('input-required');
        const done = await sendOk(APPROVAL, textMessage('approve', { taskId: first.id, contextId: first.contextId }));
        expect(done.id).toBe(first.id);
        expect(done.status.state).toBe('completed');
        expect(answerText(done)).toBe('Approved: rotate the keys. Done.');
        // An unknown task is -32001; a finished task takes no more messages (-32602).
        expectError(await send(APPROVAL, textMessage('approve', { taskId: uniqueId('task') })), -32001);
        expectError(await send(APPROVAL, textMessage('approve again', { taskId: first.id })), -32602);
      });

      it('5. Streaming: `artifact-update` frames with `append: true` are text deltas concatenated by `artifactId`; the stream always ends with `final: true`; if the connection drops, the stored task stays authoritative (tasks/get)', async () => {
        const text = 'a longer answer that arrives as several deltas';
        const r = await streamOf(ECHO, 'message/stream', { message: textMessage(text) });
        const events = r.frames.map((f) => f.data.result as StreamResult);
        const byArtifact = new Map<string, string>();
        for (const e of events) {
          if (e.kind !== 'artifact-update') continue;
          // The first chunk of an artifact starts it (A2A 0.3 §7.2.3: `append` continues one sent before).
          expect(e.append === true).toBe(byArtifact.has(e.artifact.artifactId));
          byArtifact.set(
            e.artifact.artifactId,
            (byArtifact.get(e.artifact.artifactId) ?? '') + textOfParts(e.artifact.parts),
          );
        }
        expect(events.filter((e) => e.kind === 'artifact-update').length).toBeGreaterThan(1);
        expect([...byArtifact.values()]).toEqual([text]);
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true });
        expect(events.slice(0, -1).every((e) => e.kind !== 'status-update' || e.final === false)).toBe(true);
        const stored = await getTask(ECHO, taskIdOf(events[0]!));
        expect(stored.artifacts?.find((a) => byArtifact.has(a.artifactId))?.parts).toEqual([{ kind: 'text', text }]);

        // Dropped connection: the run goes on and tasks/get has the outcome.
        const slow = await freshAgent('stream-drop', 'demo:slow');
        const dropped = await streamOf(
          slow,
          'message/stream',
          { message: slowMessage(300) },
          { stopAfter: (_f, all) => all.length >= 1 },
        );
        const taskId = taskIdOf(dropped.frames[0]!.data.result);
        const done = await waitForState(slow, taskId, 'completed');
        expect(answerText(done)).toBe('Finished after 300 ms: slow work');
      });

      it('6. tasks/resubscribe works regardless of which server replica the reconnect reaches (events are held centrally)', async () => {
        const slow = await freshAgent('replicas', 'demo:slow');
        const first = await streamOf(
          slow,
          'message/stream',
          { message: slowMessage(900) },
          { stopAfter: (_f, all) => all.length >= 2 },
        );
        // The Task snapshot (no id: it precedes event 1), then event 1.
        const lastId = first.frames.at(-1)!.id!;
        expect(lastId).toBe(1);
        const taskId = taskIdOf(first.frames[0]!.data.result);
        const again = await streamOf(
          slow,
          'tasks/resubscribe',
          { id: taskId },
          { url: `${other}/agents/${slow}/a2a`, headers: { 'Last-Event-ID': String(lastId) } },
        );
        expect(again.frames[0]!.id).toBe(lastId + 1);
        const ids = again.frames.map((f) => f.id!);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(again.frames.at(-1)!.data.result).toMatchObject({
          kind: 'status-update',
          taskId,
          final: true,
          status: { state: 'completed' },
        });
      });

      it('7. File part `bytes`: the file is stored against the subscription and handed to the agent as an attachment; at most 20 MB decoded and 10 files per message; must be valid base64', async () => {
        const task = await sendOk(
          ECHO,
          message([{ kind: 'text', text: 'see attached' }, bytesPart('notes.txt', 'text/plain', 'hello')]),
          { historyLength: 5 },
        );
        expect(answerText(task)).toBe('see attached\nReceived 1 file(s): notes.txt (text/plain, 5 bytes)');
        // Stored against the subscription: the kept message references the stored file instead of carrying its bytes.
        const filePart = task.history?.find((m) => m.role === 'user')?.parts[1] as {
          kind: 'file';
          file: { uri?: string; bytes?: string; mimeType: string };
        };
        expect(filePart.kind).toBe('file');
        expect(filePart.file.uri).toMatch(/^urn:a2a-inbound:file:/);
        expect(filePart.file.bytes).toBeUndefined();
        expectError(
          await send(
            ECHO,
            message([{ kind: 'file', file: { name: 'x.txt', mimeType: 'text/plain', bytes: 'not base64!' } }]),
          ),
          -32602,
        );
        expectError(
          await send(
            ECHO,
            message([{ kind: 'file', file: { name: 'x.txt', mimeType: 'text/plain', bytes: 'aGVsbG8' } }]),
          ),
          -32602,
        );
      });

      it('8. File part `uri`: must be `https` and resolve to a public address; the service does not download it, it passes the URI to the agent', async () => {
        const ok = await sendOk(
          ECHO,
          message([
            { kind: 'text', text: 'read this' },
            uriPart('report.pdf', 'application/pdf', `https://${pub('files')}/report.pdf`),
          ]),
          { historyLength: 10 },
        );
        expect(answerText(ok)).toBe('read this\nReceived 1 file(s): report.pdf (application/pdf, link)');
        const user = ok.history?.find((m) => m.role === 'user');
        expect((user?.parts[1] as { file: { uri: string } }).file.uri).toBe(`https://${pub('files')}/report.pdf`);
        for (const uri of [
          `http://${pub('files')}/report.pdf`,
          `ftp://${pub('files')}/report.pdf`,
          'https://127.0.0.1/report.pdf',
          'https://10.0.0.8/report.pdf',
          'https://[::1]/report.pdf',
          'https://169.254.169.254/latest/meta-data',
          'https://localhost/report.pdf',
          'https://files.private.example/report.pdf',
          'https://cloud.metadata.example/report.pdf',
          'https://nowhere.invalid-host.example/report.pdf',
          'not a url',
        ]) {
          expectError(await send(ECHO, message([uriPart('report.pdf', 'application/pdf', uri)])), -32602);
        }
      });

      it('9. File part `mimeType` is required and must be an accepted type: images, audio, video, PDF, text, JSON, Office documents; other types give error -32005', async () => {
        const accepted = [
          'image/png',
          'audio/mpeg',
          'video/mp4',
          'application/pdf',
          'text/csv',
          'application/json',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          'application/vnd.ms-excel',
        ];
        const task = await sendOk(ECHO, message(accepted.map((m, i) => bytesPart(`f${i}`, m, `file ${i}`))));
        expect(task.status.state).toBe('completed');
        expect(answerText(task)).toContain(`Received ${accepted.length} file(s)`);
        expectError(await send(ECHO, message([{ kind: 'file', file: { name: 'x.bin', bytes: 'aGVsbG8=' } }])), -32602);
        expectError(
          await send(ECHO, message([{ kind: 'file', file: { name: 'x.bin', mimeType: '', bytes: 'aGVsbG8=' } }])),
          -32602,
        );
        for (const bad of ['application/x-msdownload', 'application/zip', 'application/octet-stream']) {
          expectError(await send(ECHO, message([bytesPart('x.bin', bad, 'hello')])), -32005, {
            dataCode: 'CONTENT_TYPE_NOT_SUPPORTED',
          });
        }
        expectError(
          await send(ECHO, message([uriPart('x.exe', 'application/x-msdownload', `https://${pub('files')}/x.exe`)])),
          -32005,
        );
      });

      it("10. An agent without a tool for a file type accepts the file but cannot read it; the agent card's `defaultInputModes` shows what the agent can process", async () => {
        const task = await sendOk(
          ECHO,
          message([{ kind: 'text', text: 'watch this' }, bytesPart('clip.mp4', 'video/mp4', 'not really a video')]),
        );
        expect(task.status.state).toBe('completed');
        expect(answerText(task)).toContain('clip.mp4 (video/mp4, 18 bytes)');
        const card = (await (await fetch(cardUrl(base, ECHO))).json()) as AgentCard;
        expect(card.defaultInputModes).toEqual(expect.arrayContaining(['text/plain', 'application/json']));
        expect(card.defaultInputModes).not.toContain('video/mp4');
      });

      it('11. History is omitted unless `configuration.historyLength` (message/send) or `historyLength` (tasks/get) is given', async () => {
        const plain = await sendOk(ECHO, textMessage('no history'));
        expect(plain).not.toHaveProperty('history');
        expect(await getTask(ECHO, plain.id)).not.toHaveProperty('history');
        const zero = await sendOk(ECHO, textMessage('zero history'), { historyLength: 0 });
        expect(zero.history).toEqual([]);
        const two = await sendOk(ECHO, textMessage('two history'), { historyLength: 2 });
        expect(two.history?.length).toBeLessThanOrEqual(2);
        expect(two.history?.[0]).toMatchObject({ kind: 'message', messageId: expect.any(String) });
        const got = await getTask(ECHO, plain.id, 1);
        expect(got.history).toHaveLength(1);
        expect((await getTask(ECHO, plain.id, 1_000_000)).history?.[0]?.parts).toEqual([
          { kind: 'text', text: 'no history' },
        ]);
        for (const bad of [-1, 1.5, '3', true, {}]) {
          expectError(await send(ECHO, textMessage('bad history'), { historyLength: bad }), -32602);
          expectError(await call(ECHO, 'tasks/get', { id: plain.id, historyLength: bad }), -32602);
        }
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Message and Part tables', () => {
      it('Message: `role` is `user`, `parts` required, `messageId` required, `contextId` and `taskId` optional strings', async () => {
        expectError(await send(ECHO, { ...textMessage('x'), role: 'agent' }), -32602);
        expectError(await send(ECHO, { ...textMessage('x'), role: undefined }), -32602);
        expectError(await send(ECHO, { ...textMessage('x'), contextId: 5 }), -32602);
        expectError(await send(ECHO, { ...textMessage('x'), taskId: ['t'] }), -32602);
        expectError(await call(ECHO, 'message/send', { message: 'hello' }), -32602);
        expectError(await call(ECHO, 'message/send', { message: [textMessage('x')] }), -32602);
        const ctx = `ctx-${uniqueId()}`;
        const t = await sendOk(ECHO, textMessage('client chose the context', { contextId: ctx }));
        expect(t.contextId).toBe(ctx);
      });

      it('Part: text (`kind` = `text`), legacy text (`type` = `text`, `content`) still accepted, unknown kinds refused', async () => {
        const legacy = await sendOk(ECHO, message([{ type: 'text', content: 'legacy shape' }]));
        expect(answerText(legacy)).toBe('legacy shape');
        expectError(await send(ECHO, message([{ kind: 'image', url: 'x' }])), -32602);
        expectError(await send(ECHO, message([{ kind: 'text', text: 5 }])), -32602);
        expectError(await send(ECHO, message(['just a string'])), -32602);
      });

      it('Part: file needs `mimeType` and exactly one of `bytes` or `uri`', async () => {
        expectError(
          await send(
            ECHO,
            message([
              {
                kind: 'file',
                file: { name: 'a.txt', mimeType: 'text/plain', bytes: 'aGk=', uri: `https://${pub('files')}/a.txt` },
              },
            ]),
          ),
          -32602,
        );
        expectError(
          await send(ECHO, message([{ kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain' } }])),
          -32602,
        );
        expectError(await send(ECHO, message([{ kind: 'file', file: 'aGk=' }])), -32602);
      });

      it('A message may contain file parts with no text (the agent is then prompted to review the attached files)', async () => {
        const t = await sendOk(
          ECHO,
          message([
            bytesPart('a.json', 'application/json', '{"a":1}'),
            uriPart('b.png', 'image/png', `https://${pub('img')}/b.png`),
          ]),
        );
        expect(t.status.state).toBe('completed');
        expect(answerText(t)).toBe(
          'Please review the attached files. Received 2 file(s): a.json (application/json, 7 bytes), b.png (image/png, link)',
        );
      });

      it('Task and Artifact tables: id, contextId, kind `task`, status.state/timestamp/message, artifacts (artifactId, name `agent_response`, parts), history on request', async () => {
        const t = await sendOk(ECHO, textMessage('shape of a task'), { historyLength: 10 });
        expect(Object.keys(t).sort()).toEqual(['artifacts', 'contextId', 'history', 'id', 'kind', 'status']);
        expect(t).toMatchObject({
          kind: 'task',
          id: expect.any(String),
          contextId: expect.any(String),
          status: { state: 'completed' },
        });
        expect(Number.isNaN(Date.parse(t.status.timestamp!))).toBe(false);
        expect(t.artifacts).toEqual([
          {
            artifactId: expect.any(String),
            name: 'agent_response',
            parts: [{ kind: 'text', text: 'shape of a task' }],
          },
        ]);
        expect(t.history?.map((m) => [m.kind, m.role, m.taskId, m.contextId])).toEqual([
          ['message', 'user', t.id, t.contextId],
          ['message', 'agent', t.id, t.contextId],
        ]);
        const failed = await sendOk(FAILING, textMessage('shape of a failure'));
        expect(failed.status.message).toMatchObject({
          kind: 'message',
          role: 'agent',
          messageId: expect.any(String),
          parts: [{ kind: 'text', text: expect.any(String) }],
        });
      });

      it('Streaming events: `status-update` (taskId, contextId, status with state, final) and `artifact-update` (taskId, artifact with artifactId, name, parts, append)', async () => {
        const r = await streamOf(ECHO, 'message/stream', { message: textMessage('event shapes') });
        const [snapshot, ...events] = r.frames.map((f) => f.data.result as StreamResult) as [Task, ...StreamEvent[]];
        expect(snapshot.kind).toBe('task');
        const taskId = snapshot.id;
        for (const e of events) {
          if (e.kind === 'status-update') {
            expect(e).toMatchObject({
              taskId,
              contextId: expect.any(String),
              status: { state: expect.any(String) },
              final: expect.any(Boolean),
            });
          } else {
            expect(e.kind).toBe('artifact-update');
            expect(e).toMatchObject({
              taskId,
              artifact: { artifactId: expect.any(String), name: 'agent_response', parts: expect.any(Array) },
              append: expect.any(Boolean),
            });
          }
        }
        expect(new Set([snapshot, ...events].map((e) => e.contextId)).size).toBe(1);
        // The snapshot carries no id (it is the state before event 1); the events are numbered from 1.
        expect(r.frames.map((f) => f.id)).toEqual(r.frames.map((_, i) => (i === 0 ? undefined : i)));
      });

      it('Data parts (`kind` = `data`) are accepted and handed to the agent', async () => {
        const t = await sendOk(
          ECHO,
          message([
            { kind: 'text', text: 'with data' },
            { kind: 'data', data: { order: 42, items: ['a', 'b'] } },
          ]),
        );
        expect(answerText(t)).toBe('with data\nReceived 1 data part(s): {"order":42,"items":["a","b"]}');
        const onlyData = await sendOk(ECHO, message([{ kind: 'data', data: { x: 1 } }]));
        expect(answerText(onlyData)).toBe('Received 1 data part(s): {"x":1}');
        expectError(await send(ECHO, message([{ kind: 'data', data: 'not an object' }])), -32602);
      });

      it("Metadata of messages and parts is stored losslessly, keys with '.' and '$' included", async () => {
        const metadata = { 'a.b': 1, $c: { 'd.e': [1, { $f: 'g' }] }, plain: 'x' };
        const partMetadata = { 'x.y': true, $z: null };
        const t = await sendOk(ECHO, message([{ kind: 'text', text: 'meta', metadata: partMetadata }], { metadata }), {
          historyLength: 10,
        });
        const got = await getTask(ECHO, t.id, 10);
        const user = got.history?.find((m) => m.role === 'user');
        expect(user?.metadata).toEqual(metadata);
        expect(user?.parts[0]?.metadata).toEqual(partMetadata);
        expect(got.metadata).toEqual(metadata);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Errors (HTTP 200 for every JSON-RPC outcome)', () => {
      it('-32700 | Parse error | malformed JSON', async () => {
        for (const body of ['{"jsonrpc":"2.0","id":1,"method":', '{not json}', "{'jsonrpc':'2.0'}", '']) {
          const r = await rpc(ep(ECHO), body, { key: sut.a2aKey });
          expect(r.status).toBe(200);
          expect(r.body).toMatchObject({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32700, message: expect.any(String) },
          });
        }
      });

      it('-32600 | Invalid request | `jsonrpc` = `2.0` missing', async () => {
        for (const jsonrpc of [undefined, '1.0', 2, null]) {
          const r = await rpc(
            ep(ECHO),
            { jsonrpc, id: 'no-version', method: 'message/send', params: { message: textMessage('x') } },
            { key: sut.a2aKey },
          );
          expect(r.status).toBe(200);
          expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 'no-version', error: { code: -32600 } });
        }
      });

      it('-32600 | Invalid request | `method` missing', async () => {
        for (const method of [undefined, '', 5, null, ['message/send']]) {
          const r = await rpc(ep(ECHO), { jsonrpc: '2.0', id: 'no-method', method, params: {} }, { key: sut.a2aKey });
          expect(r.status).toBe(200);
          expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 'no-method', error: { code: -32600 } });
        }
      });

      it('-32601 | Method not found | unknown method name', async () => {
        for (const m of ['message/sned', 'tasks/list', 'Message/Send', 'SendMessage'])
          expectError(await call(ECHO, m, {}), -32601, { dataCode: 'METHOD_NOT_FOUND' });
      });

      it('-32602 | Invalid params | no `message`', async () => {
        expectError(await call(ECHO, 'message/send', {}), -32602, { dataCode: 'INVALID_PARAMS' });
        expectError(await call(ECHO, 'message/send'), -32602);
        expectError(await call(ECHO, 'message/stream', { message: null }), -32602);
        expectError(await call(ECHO, 'message/send', [textMessage('positional')]), -32602);
      });

      it('-32602 | Invalid params | empty `parts`', async () => {
        expectError(await send(ECHO, message([])), -32602);
      });

      it('-32602 | Invalid params | no `messageId`', async () => {
        const m = textMessage('x');
        delete m.messageId;
        expectError(await send(ECHO, m), -32602);
      });

      it('-32602 | Invalid params | file part with missing `mimeType`', async () => {
        expectError(await send(ECHO, message([{ kind: 'file', file: { name: 'a', bytes: 'aGk=' } }])), -32602);
        expectError(
          await send(ECHO, message([{ kind: 'file', file: { name: 'a', uri: `https://${pub('files')}/a` } }])),
          -32602,
        );
      });

      it('-32602 | Invalid params | file part with invalid base64', async () => {
        for (const bytes of ['***', 'aGk', 'a GVsbG8=', 'aGk=aGk=', 42]) {
          expectError(
            await send(ECHO, message([{ kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes } }])),
            -32602,
          );
        }
      });

      it('-32602 | Invalid params | file part over 20 MB', async () => {
        expectError(
          await send(ECHO, message([bytesPart('big.bin', 'application/pdf', Buffer.alloc(MB20 + 1, 1))])),
          -32602,
        );
      });

      it('-32602 | Invalid params | more than 10 files', async () => {
        const parts = Array.from({ length: 11 }, (_, i) => bytesPart(`f${i}.txt`, 'text/plain', `file ${i}`));
        expectError(await send(ECHO, message(parts)), -32602);
      });

      it('-32602 | Invalid params | file `uri` not public https', async () => {
        expectError(
          await send(ECHO, message([uriPart('a.pdf', 'application/pdf', `http://${pub('files')}/a.pdf`)])),
          -32602,
        );
        expectError(
          await send(ECHO, message([uriPart('a.pdf', 'application/pdf', 'https://files.private.example/a.pdf')])),
          -32602,
        );
      });

      it('-32602 | Invalid params | webhook url private/loopback/metadata', async () => {
        const agent = await freshAgent('webhook-ssrf', 'demo:echo', { push: true });
        const task = await sendOk(agent, textMessage('hooks'));
        for (const url of [
          'https://10.0.0.1/hook',
          'https://192.168.1.10/hook',
          'https://127.0.0.1/hook',
          'https://[::1]/hook',
          'https://localhost/hook',
          'https://169.254.169.254/latest/meta-data',
          'https://hooks.private.example/hook',
          'https://cloud.metadata.example/hook',
          `http://${pub('hooks')}/hook`,
          'https://[::ffff:127.0.0.1]/hook',
          // Special-purpose ranges that are not globally reachable (issue 19): IPv4-compatible loopback,
          // site-local, benchmarking, local-use NAT64, well-known NAT64 of a private address.
          'https://[::7f00:1]/hook',
          'https://[::127.0.0.1]/hook',
          'https://[fec0::1]/hook',
          'https://198.18.0.1/hook',
          'https://[64:ff9b:1::a00:1]/hook',
          'https://[64:ff9b::a00:1]/hook',
        ]) {
          expectError(
            await call(agent, 'tasks/pushNotificationConfig/set', {
              taskId: task.id,
              pushNotificationConfig: { url, token: 't' },
            }),
            -32602,
          );
        }
        expect(resultOf<unknown[]>(await call(agent, 'tasks/pushNotificationConfig/list', { id: task.id }))).toEqual(
          [],
        );
      });

      it('-32603 | Internal error | `data.code` = `INSUFFICIENT_CREDITS` when credits are insufficient', async () => {
        const before = (await operator('credits.get', {})) as { credits: number; cost: number };
        const msg = textMessage('too expensive');
        await operator('credits.setCost', { cost: before.credits + 1 });
        let r: Answer;
        try {
          r = await send(ECHO, msg);
        } finally {
          await operator('credits.setCost', { cost: before.cost });
        }
        expectError(r, -32603, { dataCode: 'INSUFFICIENT_CREDITS' });
        expect(((await operator('credits.get', {})) as { credits: number }).credits).toBe(before.credits);
        // The refused message was not handled: the same messageId goes through once credits suffice.
        expect((await sendOk(ECHO, msg)).status.state).toBe('completed');
      });

      it('Request without `id` (a JSON-RPC notification): checked like any request (-32600, -32601, -32602 with `id: null`), and a valid one is executed and answered with `id: null`', async () => {
        const noId = async (body: Record<string, unknown>): Promise<RpcAnswer> =>
          rpc(ep(ECHO), body, { key: sut.a2aKey });
        const cases: [Record<string, unknown>, number][] = [
          [{ jsonrpc: 'aaa', method: 'message/send', params: {} }, -32600],
          [{ jsonrpc: '2.0', params: {} }, -32600],
          [{ jsonrpc: '2.0', method: 'message/ssend', params: {} }, -32601],
          [{ jsonrpc: '2.0', method: 'message/send', params: { '': 'not_a_dict' } }, -32602],
          [{ jsonrpc: '2.0', method: 'message/send', params: { message: { parts: 'invalid' } } }, -32602],
          [{ jsonrpc: '2.0', method: 'tasks/get', params: { id: uniqueId('task') } }, -32001],
        ];
        for (const [body, code] of cases) {
          const r = await noId(body);
          expect(r.status, JSON.stringify(body)).toBe(200);
          expect(r.headers.get('content-type')).toMatch(/^application\/json/);
          expect(r.body, JSON.stringify(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
        }
        // Valid: executed (the caller learns the task it started and was charged for) and answered with id null.
        const sent = await noId({ jsonrpc: '2.0', method: 'message/send', params: { message: textMessage('no id') } });
        expect(sent.status).toBe(200);
        expect(sent.body).toMatchObject({
          jsonrpc: '2.0',
          id: null,
          result: { kind: 'task', status: { state: 'completed' } },
        });
        const got = await noId({ jsonrpc: '2.0', method: 'tasks/get', params: { id: sent.body.result.id } });
        expect(got.body).toMatchObject({ jsonrpc: '2.0', id: null, result: { id: sent.body.result.id } });
        expect(answerText(got.body.result as Task)).toBe('no id');
        // A streaming notification is a stream whose frames carry id null; a refused one is one error frame.
        const res = await fetch(ep(ECHO), {
          method: 'POST',
          headers: { Authorization: `Bearer ${sut.a2aKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            method: 'message/stream',
            params: { message: textMessage('no id stream') },
          }),
        });
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const frames = framesOfText(await res.text());
        expect(frames[0]!.data).toMatchObject({ jsonrpc: '2.0', id: null, result: { kind: 'task' } });
        expect(frames.every((f) => f.data.id === null && f.data.result !== undefined)).toBe(true);
        expect(frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
        const refused = await noId({ jsonrpc: '2.0', method: 'tasks/resubscribe', params: {} });
        expect(refused.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(framesOfText(refused.text)).toEqual([
          { data: { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32602 }) } },
        ]);
      });

      it('A refused `message/stream` / `tasks/resubscribe` is one SSE error frame, so @a2a-js/sdk A2AClient surfaces its code; HTTP-level refusals keep their status', async () => {
        const client = await a2aClient(base, ECHO, sut.a2aKey);
        const codeOf = async (stream: () => AsyncGenerator<unknown>): Promise<unknown> => {
          try {
            for await (const _e of stream()) {
              // A refusal yields nothing.
            }
          } catch (err) {
            return err;
          }
          throw new Error('expected the stream to fail');
        };
        const notFound = (await codeOf(() => client.resubscribeTask({ id: uniqueId('task') }))) as Error & {
          cause?: { errorResponse?: { error: { code: number } } };
        };
        expect(notFound.message).toMatch(/Code: -32001/);
        expect(notFound.cause?.errorResponse?.error.code).toBe(-32001);
        const badParams = (await codeOf(() =>
          client.sendMessageStream({ message: { ...textMessage('x'), parts: [] } as never }),
        )) as Error & { cause?: { errorResponse?: { error: { code: number } } } };
        expect(badParams.message).toMatch(/Code: -32602/);
        expect(badParams.cause?.errorResponse?.error.code).toBe(-32602);
        const badMime = (await codeOf(() =>
          client.sendMessageStream({
            message: message([bytesPart('a.zip', 'application/zip', 'zip')]) as never,
          }),
        )) as Error & { cause?: { errorResponse?: { error: { code: number } } } };
        expect(badMime.cause?.errorResponse?.error.code).toBe(-32005);
        // Rate limited after authentication: HTTP 429 as the spec says; the SDK still reports the code.
        const limited = await freshAgent('stream-429', 'demo:echo', { settings: { rateLimitPerMinute: 1 } });
        await awayFromWindowEdge();
        const limitedClient = await a2aClient(base, limited, sut.a2aKey);
        resultOf(await send(limited, textMessage('spend the budget')));
        const tooMany = (await codeOf(() =>
          limitedClient.sendMessageStream({ message: textMessage('over the limit') as never }),
        )) as Error;
        expect(tooMany.message).toMatch(/429/);
        expect(tooMany.message).toMatch(/Code: -32\d{3}/);
        const r = await streamOf(limited, 'message/stream', { message: textMessage('raw over the limit') });
        expect(r.status).toBe(429);
        expect(r.contentType).toMatch(/^application\/json/);
      });

      it('-32001 | Task not found | unknown taskId', async () => {
        for (const method of ['tasks/get', 'tasks/cancel'])
          expectError(await call(ECHO, method, { id: uniqueId('task') }), -32001, { dataCode: 'TASK_NOT_FOUND' });
        expectError(await call(ECHO, 'tasks/resubscribe', { id: uniqueId('task') }), -32001);
      });

      it('-32001 | Task not found | also for a task of another tenant (a second subscription)', async () => {
        // A second tenant, set up through the control plane: its own subscription id, key, deployment and agent.
        const tenant = { tasksAddress: sut.tasksAddress, subscriptionId: `other-tenant-${uniqueId('sub')}` };
        const key = String(
          (await manage(tenant, 'developer', 'keys.create', { name: 'tenant b', scopes: ['a2a'] })).key,
        );
        const agentId = String(
          (
            await manage(tenant, 'admin', 'agents.create', {
              name: 'Tenant B agent',
              description: 'other tenant',
              type: 'AI Agent',
            })
          ).id,
        );
        await manage(tenant, 'admin', 'agents.publishVersion', { agentId, version: '1.0.0', runtime: 'demo:echo' });
        await manage(tenant, 'admin', 'agents.promote', { agentId, version: '1.0.0' });
        const dep = String((await manage(tenant, 'admin', 'deployments.create', { name: 'tenant b deployment' })).id);
        await manage(tenant, 'admin', 'deployments.addAgent', { deploymentId: dep, agentId });
        await manage(tenant, 'admin', 'settings.update', { agentId, settings: { a2aEnabled: true } });

        const mine = await sendOk(ECHO, textMessage('tenant a secret'));
        for (const method of ['tasks/get', 'tasks/cancel']) {
          expectError(await call(agentId, method, { id: mine.id }, { key }), -32001, { dataCode: 'TASK_NOT_FOUND' });
        }
        expectError(await call(agentId, 'tasks/resubscribe', { id: mine.id }, { key }), -32001);
        // Tenant B cannot reach tenant A's agent either (it does not exist for B), and the task is untouched.
        const cross = await call(ECHO, 'tasks/get', { id: mine.id }, { key });
        expect(cross.status).toBe(404);
        expect(cross.text).not.toContain('tenant a secret');
        expect((await getTask(ECHO, mine.id)).status.state).toBe('completed');
      });

      it('-32002 | Task not cancelable | task already finished', async () => {
        const done = await sendOk(ECHO, textMessage('finished'));
        expectError(await call(ECHO, 'tasks/cancel', { id: done.id }), -32002, { dataCode: 'TASK_NOT_CANCELABLE' });
      });

      it('-32003 | Push notifications unsupported | not enabled for the agent', async () => {
        const task = await sendOk(ECHO, textMessage('no push here'));
        const cfg = { url: `https://${pub('hooks')}/x`, token: 't' };
        expectError(
          await call(ECHO, 'tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: cfg }),
          -32003,
          { dataCode: 'PUSH_NOT_SUPPORTED' },
        );
        expectError(await call(ECHO, 'tasks/pushNotificationConfig/get', { id: task.id }), -32003);
        expectError(await call(ECHO, 'tasks/pushNotificationConfig/list', { id: task.id }), -32003);
        expectError(
          await call(ECHO, 'tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: 'x' }),
          -32003,
        );
        expectError(await send(ECHO, textMessage('inline push'), { pushNotificationConfig: cfg }), -32003);
      });

      it('-32004 | Unsupported operation | unsupported protocol version', async () => {
        for (const path of ['/v0.1', '/v1.0', '/v1', '/v0.4', '/latest'])
          expectError(await call(ECHO, 'message/send', { message: textMessage('x') }, { path }), -32004, {
            dataCode: 'UNSUPPORTED_OPERATION',
          });
        for (const v of ['1.0', '1.0.0', '0.1.0', '0.4'])
          expectError(
            await call(ECHO, 'message/send', { message: textMessage('x') }, { headers: { 'A2A-Version': v } }),
            -32004,
          );
        expectError(
          await call(ECHO, 'tasks/send', {
            id: uniqueId('task'),
            message: { role: 'user', parts: [{ type: 'text', text: 'x' }] },
          }),
          -32004,
        );
      });

      it('-32004 | Unsupported operation | A2A disabled on the agent (HTTP 404)', async () => {
        const agent = await freshAgent('disabled');
        expect(resultOf(await send(agent, textMessage('on'))).status.state).toBe('completed');
        await settings(agent, { a2aEnabled: false });
        const r = await send(agent, textMessage('off'));
        expectError(r, -32004, { status: 404, dataCode: 'A2A_NOT_ENABLED' });
        expect(r.body.error.message).toBe('A2A is not enabled for this agent');
      });

      it('-32005 | Content type not supported | file part mimeType not accepted', async () => {
        expectError(await send(ECHO, message([bytesPart('a.exe', 'application/x-msdownload', 'MZ')])), -32005, {
          dataCode: 'CONTENT_TYPE_NOT_SUPPORTED',
        });
        expectError(await send(ECHO, message([bytesPart('a', 'not a media type', 'x')])), -32005);
      });

      it('-32007 | Extended card not configured | agent/getAuthenticatedExtendedCard', async () => {
        expectError(await call(ECHO, 'agent/getAuthenticatedExtendedCard', {}), -32007);
      });

      it('A JSON-RPC error means the request never reached the agent; an agent that could not complete is a successful response with `failed`', async () => {
        const failed = resultOf(await send(FAILING, textMessage('please fail')));
        expect(failed.status.state).toBe('failed');
        const before = (await operator('credits.get', {})) as { credits: number };
        expectError(await send(ECHO, message([bytesPart('a.exe', 'application/x-msdownload', 'MZ')])), -32005);
        expect(((await operator('credits.get', {})) as { credits: number }).credits).toBe(before.credits);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('HTTP-level refusals (body still JSON-RPC-shaped)', () => {
      const body = (): Record<string, unknown> => ({
        jsonrpc: '2.0',
        id: 'refused',
        method: 'message/send',
        params: { message: textMessage('x') },
      });
      const expectRefusal = (r: RpcAnswer, status: number): void => {
        expect(r.status).toBe(status);
        expect(r.headers.get('content-type')).toMatch(/^application\/json/);
        expect(r.body).toMatchObject({
          jsonrpc: '2.0',
          error: { code: expect.any(Number), message: expect.any(String) },
        });
        expect(Object.keys(r.body).sort()).toEqual(['error', 'id', 'jsonrpc']);
      };

      it('401, 403 | key missing', async () => {
        const r = await rpc(ep(ECHO), body());
        expectRefusal(r, 401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
        for (const authorization of ['Bearer', 'Basic dXNlcjpwYXNz', sut.a2aKey, '']) {
          const x = await rpc(ep(ECHO), body(), { headers: { Authorization: authorization } });
          expectRefusal(x, 401);
        }
      });

      it('401, 403 | key expired', async () => {
        const key = await expiringKey();
        const r = await eventually(
          async () => {
            const x = await rpc(ep(ECHO), body(), { key });
            return x.status === 401 ? x : undefined;
          },
          5_000,
          50,
        );
        expectRefusal(r, 401);
        expect(r.body.error.message).toMatch(/expired/i);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      });

      it('401, 403 | key revoked', async () => {
        const k = await manage(sut, 'developer', 'keys.create', { name: 'to revoke', scopes: ['a2a'] });
        expect((await rpc(ep(ECHO), body(), { key: k.key })).status).toBe(200);
        await manage(sut, 'developer', 'keys.revoke', { keyId: k.id });
        const r = await rpc(ep(ECHO), body(), { key: k.key });
        expectRefusal(r, 401);
        expect(r.body.error.message).toMatch(/revoked/i);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      });

      it('401, 403 | key lacking scope `a2a`', async () => {
        const r = await rpc(ep(ECHO), body(), { key: sut.invokeKey });
        expectRefusal(r, 403);
        expect(r.body.error.data.code).toBe('PERMISSION_DENIED');
        expect(r.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
        const unknown = await rpc(ep(ECHO), body(), { key: 'a2a_this-key-does-not-exist' });
        expectRefusal(unknown, 401);
      });

      it('404 | A2A not enabled on the agent', async () => {
        const r = await rpc(ep(TASK_AGENT), body(), { key: sut.a2aKey });
        expectRefusal(r, 404);
        expect(r.body.error.message).toBe('A2A is not enabled for this agent');
        const unknownAgent = await rpc(ep('no-such-agent'), body(), { key: sut.a2aKey });
        expectRefusal(unknownAgent, 404);
      });

      it('429 | rate limited (with Retry-After)', async () => {
        const agent = await freshAgent('rate-429', 'demo:echo', { settings: { rateLimitPerMinute: 2 } });
        await awayFromWindowEdge();
        expect((await rpc(ep(agent), body(), { key: sut.a2aKey })).status).toBe(200);
        expect((await rpc(ep(agent), body(), { key: sut.a2aKey })).status).toBe(200);
        const r = await rpc(ep(agent), body(), { key: sut.a2aKey });
        expectRefusal(r, 429);
        expect(r.body.error.data.code).toBe('RATE_LIMITED');
        const retryAfter = Number(r.headers.get('retry-after'));
        expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('States and transitions', () => {
      it('(new) | message/send or message/stream | agent answers within the blocking budget | `completed` | artifacts returned, including `agent_response`', async () => {
        const sent = await sendOk(ECHO, textMessage('within budget'));
        expect(sent.status).toMatchObject({ state: 'completed', timestamp: expect.any(String) });
        expect(sent.artifacts?.map((a) => a.name)).toContain('agent_response');
        const r = await streamOf(ECHO, 'message/stream', { message: textMessage('streamed within budget') });
        const events = r.frames.map((f) => f.data.result as StreamResult);
        expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'working' }, artifacts: [] });
        // Events table: the first status-update is `working`, `final` false; the last is terminal, `final` true.
        expect(events[1]).toMatchObject({ kind: 'status-update', status: { state: 'working' }, final: false });
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' }, final: true });
        const stored = await getTask(ECHO, taskIdOf(events[0]!));
        expect(answerText(stored)).toBe('streamed within budget');
      });

      it('(new) | message/send | blocking budget exceeded | `working` | run is detached and keeps running; response has empty artifacts', async () => {
        const slow = await freshAgent('budget', 'demo:slow', { settings: { blockingBudgetMs: 150 } });
        const started = Date.now();
        const t = await sendOk(slow, slowMessage(1_200));
        expect(Date.now() - started).toBeLessThan(1_100);
        expect(t.status.state).toBe('working');
        expect(t.artifacts).toEqual([]);
        const done = await waitForState(slow, t.id, 'completed');
        expect(answerText(done)).toBe('Finished after 1200 ms: slow work');
      });

      it('(new) | message/send with `configuration.blocking` = false | always | `working` | client polls tasks/get', async () => {
        const t = await sendOk(ECHO, textMessage('do not wait'), { blocking: false });
        expect(t.status.state).toBe('working');
        expect(t.artifacts).toEqual([]);
        const done = await waitForState(ECHO, t.id, 'completed');
        expect(answerText(done)).toBe('do not wait');
        expectError(await send(ECHO, textMessage('x'), { blocking: 'no' }), -32602);
      });

      it('(new) or `working` | agent ran and could not complete | `failed` | successful JSON-RPC response; reason in status.message', async () => {
        const r = await send(FAILING, textMessage('impossible'));
        const t = resultOf(r);
        expect(t.status.state).toBe('failed');
        expect(textOfParts(t.status.message?.parts)).toContain('could not complete');
        const s = await streamOf(FAILING, 'message/stream', { message: textMessage('impossible too') });
        expect(s.frames.at(-1)!.data.result).toMatchObject({
          kind: 'status-update',
          final: true,
          status: { state: 'failed' },
        });
        expect(textOfParts(s.frames.at(-1)!.data.result.status.message.parts)).toContain('could not complete');
        // A version whose runtime does not exist is refused when it is created (ADR 0020): it never runs.
        await expect(freshAgent('no-runtime', 'demo:does-not-exist')).rejects.toThrow(
          /unknown runtime "demo:does-not-exist"/,
        );
      });

      it('`working` | agent hits an approval checkpoint | `input-required` | prompt in status.message', async () => {
        const t = await sendOk(APPROVAL, textMessage('delete the backups'));
        expect(t.status.state).toBe('input-required');
        expect(textOfParts(t.status.message?.parts)).toContain('Approval needed: "delete the backups"');
        const s = await streamOf(APPROVAL, 'message/stream', { message: textMessage('archive logs') });
        expect(s.frames.at(-1)!.data.result).toMatchObject({
          kind: 'status-update',
          final: true,
          status: { state: 'input-required' },
        });
      });

      it('`input-required` | message/send carrying the same taskId (and contextId) with the reply | the task continues', async () => {
        const t = await sendOk(APPROVAL, textMessage('restart the cluster'));
        const rejected = await sendOk(APPROVAL, textMessage('reject', { taskId: t.id, contextId: t.contextId }));
        expect(rejected).toMatchObject({ id: t.id, contextId: t.contextId, status: { state: 'completed' } });
        expect(answerText(rejected)).toBe('Rejected: restart the cluster. Nothing was done.');
        // The reply may also come as a stream, and without the contextId.
        const t2 = await sendOk(APPROVAL, textMessage('scale up'));
        const s = await streamOf(APPROVAL, 'message/stream', { message: textMessage('approve', { taskId: t2.id }) });
        expect(s.frames.at(-1)!.data.result).toMatchObject({
          taskId: t2.id,
          final: true,
          status: { state: 'completed' },
        });
        // A mismatching contextId is refused.
        const t3 = await sendOk(APPROVAL, textMessage('third'));
        expectError(
          await send(APPROVAL, textMessage('approve', { taskId: t3.id, contextId: 'another-context' })),
          -32602,
        );
      });

      it('`input-required` | two racing replies on the same taskId: one continues the task, the other is refused (-32602) and not charged', async () => {
        const t = await sendOk(APPROVAL, textMessage('race the replies'));
        const before = (await operator('credits.get', {})) as { credits: number; cost: number };
        const replies = await Promise.all([
          send(APPROVAL, textMessage('approve', { taskId: t.id })),
          rpc(
            `${other}/agents/${APPROVAL}/a2a`,
            {
              jsonrpc: '2.0',
              id: 'r2',
              method: 'message/send',
              params: { message: textMessage('approve', { taskId: t.id }) },
            },
            { key: sut.a2aKey },
          ),
          send(APPROVAL, textMessage('approve', { taskId: t.id })),
        ]);
        const ok = replies.filter((r) => r.body.result);
        const refused = replies.filter((r) => r.body.error);
        expect(ok).toHaveLength(1);
        expect(refused.map((r) => r.body.error.code)).toEqual([-32602, -32602]);
        expect(ok[0]!.body.result).toMatchObject({ id: t.id, status: { state: 'completed' } });
        expect(((await operator('credits.get', {})) as { credits: number }).credits).toBe(before.credits - before.cost);
      });

      it('non-terminal | tasks/cancel | task not finished | cancelled (state `canceled`)', async () => {
        const slow = await freshAgent('cancel-states', 'demo:slow');
        const running = await runningSlowTask(slow, 20_000);
        const c = resultOf(await call(slow, 'tasks/cancel', { id: running.id }));
        expect(c).toMatchObject({ id: running.id, status: { state: 'canceled' } });
        expect((await getTask(slow, running.id)).status.state).toBe('canceled');
        const waiting = await sendOk(APPROVAL, textMessage('wait for me'));
        expect(waiting.status.state).toBe('input-required');
        expect(resultOf(await call(APPROVAL, 'tasks/cancel', { id: waiting.id })).status.state).toBe('canceled');
        expectError(await send(APPROVAL, textMessage('approve', { taskId: waiting.id })), -32602);
      });

      it('finished | tasks/cancel | | unchanged | error -32002', async () => {
        const completed = await sendOk(ECHO, textMessage('done'));
        const failed = await sendOk(FAILING, textMessage('fail'));
        const slow = await freshAgent('cancel-twice', 'demo:slow');
        const running = await runningSlowTask(slow, 20_000);
        resultOf(await call(slow, 'tasks/cancel', { id: running.id }));
        for (const [agent, t, state] of [
          [ECHO, completed, 'completed'],
          [FAILING, failed, 'failed'],
          [slow, running, 'canceled'],
        ] as const) {
          expectError(await call(agent, 'tasks/cancel', { id: t.id }), -32002);
          expect((await getTask(agent, t.id)).status.state).toBe(state);
        }
      });

      it("Task: `artifacts` is the agent's output; empty while `working` (tasks/get too), all of it once finished", async () => {
        const slow = await freshAgent('early-output', 'demo:slow', {
          runtimeConfig: { earlyOutput: true, workMs: 700 },
        });
        const t = await sendOk(slow, message([{ kind: 'text', text: 'report as you go' }]), { blocking: false });
        // Wait until the agent has produced output while it still works.
        const seen = await streamOf(
          slow,
          'tasks/resubscribe',
          { id: t.id },
          { stopAfter: (f) => f.data.result?.kind === 'artifact-update' },
        );
        expect(seen.frames.at(-1)!.data.result).toMatchObject({
          kind: 'artifact-update',
          artifact: { name: 'progress' },
        });
        const during = await getTask(slow, t.id);
        expect(during.status.state).toBe('working');
        expect(during.artifacts).toEqual([]);
        const done = await waitForState(slow, t.id, 'completed');
        expect(done.artifacts?.map((a) => a.name)).toEqual(['progress', 'agent_response']);
      });

      it('any | tasks/get | task exists | unchanged | returns Task', async () => {
        const slow = await freshAgent('get-any', 'demo:slow');
        const running = await runningSlowTask(slow, 20_000);
        expect(await getTask(slow, running.id)).toMatchObject({
          kind: 'task',
          id: running.id,
          status: { state: 'working' },
        });
        expect((await getTask(slow, running.id)).status.state).toBe('working');
        const waiting = await sendOk(APPROVAL, textMessage('get me while waiting'));
        expect((await getTask(APPROVAL, waiting.id)).status.state).toBe('input-required');
        await call(slow, 'tasks/cancel', { id: running.id });
      });

      it('any | tasks/resubscribe | task already finished | unchanged | single event with `final: true`', async () => {
        for (const [agent, text, state] of [
          [ECHO, 'finished', 'completed'],
          [FAILING, 'failed', 'failed'],
        ] as const) {
          const t = await sendOk(agent, textMessage(text));
          for (const headers of [{}, { 'Last-Event-ID': '9999' }]) {
            const r = await streamOf(agent, 'tasks/resubscribe', { id: t.id }, { headers });
            expect(r.frames).toHaveLength(1);
            expect(r.frames[0]!.data).toMatchObject({
              jsonrpc: '2.0',
              id: r.id,
              result: { kind: 'status-update', taskId: t.id, final: true, status: { state } },
            });
          }
          // A stream resumed from its Last-Event-ID gets the events it missed, and still one `final: true`, last.
          const resumed = await streamOf(
            agent,
            'tasks/resubscribe',
            { id: t.id },
            { headers: { 'Last-Event-ID': '1' } },
          );
          const ids = resumed.frames.map((f) => f.id).filter((id) => id !== undefined);
          expect(ids[0]).toBeGreaterThan(1);
          expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
          expect(resumed.frames.filter((f) => f.data.result.final === true)).toHaveLength(1);
          expect(resumed.frames.at(-1)!.data.result).toMatchObject({
            kind: 'status-update',
            final: true,
            status: { state },
          });
          if (state === 'completed') {
            const chunks = resumed.frames.map((f) => f.data.result).filter((r) => r.kind === 'artifact-update');
            expect(chunks.flatMap((r) => r.artifact.parts.map((p: { text: string }) => p.text)).join('')).toBe(text);
          }
          expect((await getTask(agent, t.id)).status.state).toBe(state);
        }
      });

      it('tasks/resubscribe of a running task replays missed events, then live ones (also from a Last-Event-ID)', async () => {
        const slow = await freshAgent('resubscribe-raw', 'demo:slow');
        const s = await streamOf(
          slow,
          'message/stream',
          { message: slowMessage(800) },
          { stopAfter: (_f, all) => all.length >= 2 },
        );
        const taskId = taskIdOf(s.frames[0]!.data.result);
        expect(s.frames.map((f) => f.id)).toEqual([undefined, 1]);
        const [all, after, beyond] = await Promise.all([
          streamOf(slow, 'tasks/resubscribe', { id: taskId }),
          streamOf(slow, 'tasks/resubscribe', { id: taskId }, { headers: { 'Last-Event-ID': '1' } }),
          // A Last-Event-ID beyond the last event does not skip the end: the stream goes on live to `final`.
          streamOf(slow, 'tasks/resubscribe', { id: taskId }, { headers: { 'Last-Event-ID': '9999' } }),
        ]);
        expect(beyond.frames.some((f) => f.data.result.kind === 'artifact-update')).toBe(true);
        expect(beyond.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
        expect(all.frames[0]!.id).toBe(1);
        expect(all.frames[0]!.data.result).toMatchObject({
          kind: 'status-update',
          status: { state: 'working' },
          final: false,
        });
        expect(after.frames[0]!.id).toBe(2);
        expect(after.frames.map((f) => f.id)).toEqual(all.frames.slice(1).map((f) => f.id));
        for (const r of [all, after]) {
          expect(r.frames.some((f) => f.data.result.kind === 'artifact-update')).toBe(true);
          expect(r.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
        }
      });

      it('tasks/resubscribe to a running task that is quiet for a while opens the SSE stream at once, then delivers the live events', async () => {
        const slow = await freshAgent('quiet', 'demo:slow');
        const t = await runningSlowTask(slow, 2_500);
        // Past the progress event (seq 2) nothing happens for 2.5 s.
        await eventually(
          async () => ((await getTask(slow, t.id, 10)).history?.some((m) => m.role === 'agent') ? true : undefined),
          5_000,
          20,
        );
        const started = Date.now();
        const res = await fetch(ep(slow), {
          method: 'POST',
          headers: { Authorization: `Bearer ${sut.a2aKey}`, 'Content-Type': 'application/json', 'Last-Event-ID': '2' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 'quiet', method: 'tasks/resubscribe', params: { id: t.id } }),
        });
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const text = await res.text();
        const frames = text
          .split('\n\n')
          .filter((f) => f.includes('data:'))
          .map((f) => JSON.parse(f.slice(f.indexOf('data:') + 5)) as { id: string; result: StreamEvent });
        expect(frames.every((f) => f.id === 'quiet')).toBe(true);
        expect(frames.at(-1)!.result).toMatchObject({
          kind: 'status-update',
          final: true,
          status: { state: 'completed' },
        });
      });

      it('Message idempotency: sending a messageId already seen for the subscription returns the stored task; the agent is not re-run and credits are not charged again', async () => {
        const before = (await operator('credits.get', {})) as { credits: number; cost: number };
        const msg = textMessage('exactly once');
        const a = await sendOk(ECHO, msg);
        const b = await sendOk(ECHO, { ...msg, parts: [{ kind: 'text', text: 'different text, same messageId' }] });
        expect(b.id).toBe(a.id);
        expect(answerText(b)).toBe('exactly once');
        const after = (await operator('credits.get', {})) as { credits: number };
        expect(after.credits).toBe(before.credits - before.cost);
        const history = (await getTask(ECHO, a.id, 100)).history ?? [];
        expect(history.filter((m) => m.role === 'user')).toHaveLength(1);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Limits', () => {
      it('Decoded file size | 20 MB | each `bytes` file part (20 MB accepted, 20 MB + 1 byte refused with -32602)', async () => {
        const ok = await sendOk(
          ECHO,
          message([bytesPart('exactly-20mb.pdf', 'application/pdf', Buffer.alloc(MB20, 7))]),
        );
        expect(ok.status.state).toBe('completed');
        expect(answerText(ok)).toContain(`exactly-20mb.pdf (application/pdf, ${MB20} bytes)`);
        expectError(
          await send(ECHO, message([bytesPart('too-big.pdf', 'application/pdf', Buffer.alloc(MB20 + 1, 7))])),
          -32602,
        );
      }, 60_000);

      it('Files per message | 10 | message/send, message/stream (10 accepted, 11 refused)', async () => {
        const files = (n: number): Record<string, unknown>[] =>
          Array.from({ length: n }, (_, i) => bytesPart(`f${i}.txt`, 'text/plain', `file number ${i}`));
        const ten = await sendOk(ECHO, message([{ kind: 'text', text: 'ten' }, ...files(10)]));
        expect(answerText(ten)).toContain('Received 10 file(s)');
        expectError(await send(ECHO, message([{ kind: 'text', text: 'eleven' }, ...files(11)])), -32602);
        const streamed = await streamOf(ECHO, 'message/stream', { message: message(files(10)) });
        expect(streamed.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
        expectError(await call(ECHO, 'message/stream', { message: message(files(11)) }), -32602);
        // Ten uri files count too.
        const uris = Array.from({ length: 11 }, (_, i) =>
          uriPart(`u${i}.pdf`, 'application/pdf', `https://${pub('files')}/${i}.pdf`),
        );
        expectError(await send(ECHO, message(uris)), -32602);
      });

      it('Blocking budget | 120 seconds default, per agent | message/send, message/stream wait before state `working`', async () => {
        const withBudget = await freshAgent('budget-short', 'demo:slow', { settings: { blockingBudgetMs: 100 } });
        const withDefault = await freshAgent('budget-default', 'demo:slow');
        const dep = await admin('deployments.get', { deploymentId: DEPLOYMENT });
        const view = (dep.agents as { agentId: string; blockingBudgetMs: number }[]).find(
          (a) => a.agentId === withDefault,
        );
        expect(view?.blockingBudgetMs).toBe(120_000);
        const [short, long] = await Promise.all([
          sendOk(withBudget, slowMessage(600)),
          sendOk(withDefault, slowMessage(600)),
        ]);
        expect(short.status.state).toBe('working');
        expect(short.artifacts).toEqual([]);
        expect(long.status.state).toBe('completed');
        expect(answerText(long)).toBe('Finished after 600 ms: slow work');
        // A stream is not cut by the budget: it runs to the final event.
        const s = await streamOf(withBudget, 'message/stream', { message: slowMessage(400) });
        expect(s.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
      });

      it('Rate limit | requests per minute, per agent, configured in agent settings | exceeding gives HTTP 429', async () => {
        const limited = await freshAgent('rate-a', 'demo:echo', { settings: { rateLimitPerMinute: 3 } });
        const neighbour = await freshAgent('rate-b', 'demo:echo', { settings: { rateLimitPerMinute: 3 } });
        await awayFromWindowEdge();
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await send(limited, textMessage(`r${i}`))).status);
        expect(statuses).toEqual([200, 200, 200, 429]);
        // Another agent has its own budget; a card fetch is not a JSON-RPC call and still works.
        expect((await send(neighbour, textMessage('neighbour'))).status).toBe(200);
        expect((await fetch(cardUrl(base, limited))).status).toBe(200);
        // Raising the limit takes effect at once.
        await settings(limited, { rateLimitPerMinute: 100 });
        expect((await send(limited, textMessage('after raise'))).status).toBe(200);
      });

      it('Idempotency | keyed on messageId per subscription | message/send (two racing sends: one task, one charge)', async () => {
        const before = (await operator('credits.get', {})) as { credits: number; cost: number };
        const msg = textMessage('racing twins');
        const [a, b] = await Promise.all([
          send(ECHO, msg),
          rpc(
            `${other}/agents/${ECHO}/a2a`,
            { jsonrpc: '2.0', id: 'twin', method: 'message/send', params: { message: msg } },
            { key: sut.a2aKey },
          ),
        ]);
        const ta = resultOf(a);
        expect(b.body.error).toBeUndefined();
        expect(b.body.result.id).toBe(ta.id);
        const done = await waitForState(ECHO, ta.id, 'completed');
        expect(answerText(done)).toBe('racing twins');
        const after = (await operator('credits.get', {})) as { credits: number };
        expect(after.credits).toBe(before.credits - before.cost);
        // Streaming the same messageId again replays the stored task without a new run.
        const replay = await streamOf(ECHO, 'message/stream', { message: msg });
        expect(replay.frames.at(-1)!.data.result).toMatchObject({
          taskId: ta.id,
          final: true,
          status: { state: 'completed' },
        });
        expect(((await operator('credits.get', {})) as { credits: number }).credits).toBe(after.credits);
      });

      it('Credits | consumed as for any other invocation; insufficient gives -32603 with `data.code` = `INSUFFICIENT_CREDITS` | every invocation', async () => {
        const before = (await operator('credits.get', {})) as { credits: number; cost: number };
        await sendOk(ECHO, textMessage('one invocation'));
        await sendOk(FAILING, textMessage('a failed run is an invocation too'));
        const mid = (await operator('credits.get', {})) as { credits: number };
        expect(mid.credits).toBe(before.credits - 2 * before.cost);
        await operator('credits.setCost', { cost: 3 });
        try {
          await sendOk(ECHO, textMessage('costs three'));
          expect(((await operator('credits.get', {})) as { credits: number }).credits).toBe(mid.credits - 3);
          await operator('credits.setCost', { cost: mid.credits });
          expectError(await send(ECHO, textMessage('cannot afford')), -32603, { dataCode: 'INSUFFICIENT_CREDITS' });
          expectError(await call(ECHO, 'message/stream', { message: textMessage('cannot afford a stream') }), -32603, {
            dataCode: 'INSUFFICIENT_CREDITS',
          });
        } finally {
          await operator('credits.setCost', { cost: before.cost });
        }
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Authentication', () => {
      it('1. Agent cards and the deployment agent catalog are public; no key (a card fetch never returns 401)', async () => {
        for (const url of [
          cardUrl(base, ECHO),
          `${base}/agents/${ECHO}/.well-known/agent.json`,
          `${base}/deployments/${DEPLOYMENT}/.well-known/agent-catalog.json`,
          `${base}/.well-known/agent-card.json`,
        ]) {
          expect((await fetch(url)).status).toBe(200);
          expect((await fetch(url, { headers: { Authorization: 'Bearer not-a-key' } })).status).toBe(200);
        }
      });

      it('2. The JSON-RPC endpoints require `Authorization: Bearer <API_KEY>` where the key has the `a2a` scope; the card advertises this bearer scheme', async () => {
        const card = (await (await fetch(cardUrl(base, ECHO))).json()) as AgentCard;
        expect(card.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
        expect(resultOf(await send(ECHO, textMessage('bearer ok'))).status.state).toBe('completed');
        const lowerCase = await rpc(
          ep(ECHO),
          { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } },
          { headers: { Authorization: `bearer ${sut.a2aKey}` } },
        );
        expect(lowerCase.status).toBe(200);
        for (const headers of [
          { 'X-API-Key': sut.a2aKey },
          { Authorization: `Token ${sut.a2aKey}` },
          { Authorization: `Basic ${Buffer.from(`x:${sut.a2aKey}`).toString('base64')}` },
        ]) {
          expect(
            (await rpc(ep(ECHO), { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, { headers }))
              .status,
          ).toBe(401);
        }
      });

      it('3. The `a2a` scope covers every method of the endpoint', async () => {
        const agent = await freshAgent('scope-all', 'demo:echo', { push: true });
        const t = await sendOk(agent, textMessage('scope'));
        const calls: [string, unknown][] = [
          ['message/send', { message: textMessage('x') }],
          ['tasks/get', { id: t.id }],
          ['tasks/cancel', { id: t.id }],
          [
            'tasks/pushNotificationConfig/set',
            { taskId: t.id, pushNotificationConfig: { id: 'c', url: `https://${pub('h')}/x`, token: 't' } },
          ],
          ['tasks/pushNotificationConfig/get', { id: t.id }],
          ['tasks/pushNotificationConfig/list', { id: t.id }],
          ['tasks/pushNotificationConfig/delete', { id: t.id, pushNotificationConfigId: 'c' }],
          ['agent/getAuthenticatedExtendedCard', {}],
        ];
        for (const [method, params] of calls) {
          const r = await call(agent, method, params);
          expect(r.status, method).toBe(200);
          expect([-32050, -32051]).not.toContain(r.body.error?.code);
        }
        for (const method of ['message/stream', 'tasks/resubscribe']) {
          const s = await streamOf(
            agent,
            method,
            method === 'message/stream' ? { message: textMessage('x') } : { id: t.id },
          );
          expect(s.status, method).toBe(200);
          expect(s.frames.at(-1)!.data.result.final).toBe(true);
        }
      });

      it('4. Other agent endpoints use a key with scope `invoke`; the A2A endpoint needs an `a2a` key', async () => {
        expect((await call(ECHO, 'tasks/get', { id: 'x' }, { key: sut.invokeKey })).status).toBe(403);
        const both = await manage(sut, 'developer', 'keys.create', { name: 'both scopes', scopes: ['a2a', 'invoke'] });
        expect(
          resultOf(await call(ECHO, 'message/send', { message: textMessage('both') }, { key: both.key })).status.state,
        ).toBe('completed');
      });

      it('5. A missing, expired, revoked or wrongly scoped key gives HTTP 401 or 403 with a JSON-RPC-shaped body', async () => {
        const revoked = await manage(sut, 'developer', 'keys.create', { name: 'revoked', scopes: ['a2a'] });
        await manage(sut, 'developer', 'keys.revoke', { keyId: revoked.id });
        const expired = await expiringKey();
        await eventually(
          async () => (await call(ECHO, 'tasks/get', { id: 'x' }, { key: expired })).status === 401,
          5_000,
          50,
        );
        for (const [key, status] of [
          [null, 401],
          [expired, 401],
          [revoked.key as string, 401],
          [sut.invokeKey, 403],
        ] as const) {
          for (const method of ['message/send', 'message/stream', 'tasks/get']) {
            const r = await call(ECHO, method, { message: textMessage('x'), id: 'x' }, { key });
            expect(r.status).toBe(status);
            expect(r.headers.get('content-type')).toMatch(/^application\/json/);
            expect(r.body).toMatchObject({
              jsonrpc: '2.0',
              error: { code: expect.any(Number), message: expect.any(String), data: { code: expect.any(String) } },
            });
            expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
          }
        }
      });

      it('6. A2A not enabled on the agent gives HTTP 404 (message: A2A is not enabled for this agent)', async () => {
        const agent = await freshAgent('toggle');
        await settings(agent, { a2aEnabled: false });
        for (const a of [agent, TASK_AGENT]) {
          const r = await send(a, textMessage('x'));
          expect(r.status).toBe(404);
          expect(r.body.error.message).toBe('A2A is not enabled for this agent');
          expect((await fetch(cardUrl(base, a))).status).toBe(404);
        }
        await settings(agent, { a2aEnabled: true });
        expect(resultOf(await send(agent, textMessage('back on'))).status.state).toBe('completed');
      });

      it('7. Creating a key is shown once; it must be stored at creation', async () => {
        const created = await manage(sut, 'developer', 'keys.create', { name: 'shown once', scopes: ['a2a'] });
        expect(typeof created.key).toBe('string');
        const listed = (await manage(sut, 'developer', 'keys.list', {})) as Record<string, unknown>[];
        const mine = listed.find((k) => k.id === created.id);
        expect(mine).toBeDefined();
        expect(JSON.stringify(listed)).not.toContain(created.key);
        expect(
          resultOf(await call(ECHO, 'message/send', { message: textMessage('new key') }, { key: created.key })).status
            .state,
        ).toBe('completed');
      });

      it('8. Enabling A2A on an agent requires the Admin role and an AI Agent', async () => {
        const agent = await freshAgent('enable-role');
        await settings(agent, { a2aEnabled: false });
        await expect(
          manage(sut, 'developer', 'settings.update', { agentId: agent, settings: { a2aEnabled: true } }),
        ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
        await expect(
          manage(sut, 'operator', 'settings.update', { agentId: agent, settings: { a2aEnabled: true } }),
        ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
        expect((await send(agent, textMessage('still off'))).status).toBe(404);
        await expect(
          admin('settings.update', { agentId: TASK_AGENT, settings: { a2aEnabled: true } }),
        ).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
        expect((await fetch(cardUrl(base, TASK_AGENT))).status).toBe(404);
        await settings(agent, { a2aEnabled: true });
        expect((await fetch(cardUrl(base, agent))).status).toBe(200);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Versioning', () => {
      it('0.3.0 | supported, default | /.well-known/agent-card.json | /agents/{id}/a2a/v0.3', async () => {
        const card = (await (await fetch(cardUrl(base, ECHO))).json()) as AgentCard;
        expect(card.protocolVersion).toBe('0.3.0');
        expect(card.url).toBe(`${base}/agents/${ECHO}/a2a/v0.3`);
        const client = await a2aClient(base, ECHO, sut.a2aKey);
        const r = (await client.sendMessage({ message: textMessage('over v0.3') as never })) as { result: Task };
        expect(answerText(r.result)).toBe('over v0.3');
        expect(resultOf(await send(ECHO, textMessage('header 0.3'), undefined, { path: '/v0.3' })).status.state).toBe(
          'completed',
        );
        expect(
          resultOf(
            await call(
              ECHO,
              'message/send',
              { message: textMessage('h') },
              { path: '/v0.3', headers: { 'A2A-Version': '0.3' } },
            ),
          ).status.state,
        ).toBe('completed');
      });

      it('0.2.x (0.2.1 to 0.2.6) | supported | /.well-known/agent.json | /agents/{id}/a2a/v0.2 (serves 0.2.6)', async () => {
        const res = await fetch(`${base}/agents/${ECHO}/.well-known/agent.json`);
        expect(res.status).toBe(200);
        const card = (await res.json()) as AgentCard;
        expect(card.protocolVersion).toBe('0.2.6');
        expect(card.url).toBe(`${base}/agents/${ECHO}/a2a/v0.2`);
        for (const k of ['signatures', 'additionalInterfaces']) expect(card).not.toHaveProperty(k);
        // The SDK, pointed at the 0.2 card, talks to the 0.2 endpoint with its own shapes.
        const client = await A2AClient.fromCardUrl(`${base}/agents/${ECHO}/.well-known/agent.json`, {
          fetchImpl: (input, init) =>
            fetch(input, {
              ...init,
              headers: { ...(init?.headers as Record<string, string>), Authorization: `Bearer ${sut.a2aKey}` },
            }),
        });
        const sent = (await client.sendMessage({ message: textMessage('over v0.2') as never })) as { result: Task };
        expect(answerText(sent.result)).toBe('over v0.2');
        const got = (await client.getTask({ id: sent.result.id, historyLength: 1 })) as { result: Task };
        expect(got.result.history).toHaveLength(1);
        const events: StreamEvent[] = [];
        for await (const e of client.sendMessageStream({ message: textMessage('streamed over v0.2') as never }))
          events.push(e as StreamEvent);
        expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
        for (const v of ['0.2.1', '0.2.5', '0.2.6', '0.2']) {
          expect(
            resultOf(
              await call(
                ECHO,
                'message/send',
                { message: textMessage(v) },
                { path: '/v0.2', headers: { 'A2A-Version': v } },
              ),
            ).status.state,
          ).toBe('completed');
        }
        // Same methods as 0.3 except the 0.3-only agent/getAuthenticatedExtendedCard.
        expectError(await call(ECHO, 'agent/getAuthenticatedExtendedCard', {}, { path: '/v0.2' }), -32601);
        expectError(await call(ECHO, 'tasks/cancel', { id: sent.result.id }, { path: '/v0.2' }), -32002);
        expectError(
          await call(ECHO, 'tasks/pushNotificationConfig/list', { id: sent.result.id }, { path: '/v0.2' }),
          -32003,
        );
        const r = await streamOf(ECHO, 'tasks/resubscribe', { id: sent.result.id }, { url: ep(ECHO, '/v0.2') });
        expect(r.frames).toHaveLength(1);
      });

      it('1.0.x | in validation; enabled in a later, separate release | /.well-known/agent-card.json | none yet', async () => {
        const card = (await (await fetch(cardUrl(base, ECHO))).json()) as AgentCard;
        expect(card.protocolVersion).toBe('0.3.0');
        expectError(await call(ECHO, 'message/send', { message: textMessage('x') }, { path: '/v1.0' }), -32004);
        expectError(
          await call(ECHO, 'message/send', { message: textMessage('x') }, { headers: { 'A2A-Version': '1.0' } }),
          -32004,
        );
        expectError(
          await call(ECHO, 'SendMessage', { message: textMessage('x') }, { headers: { 'A2A-Version': '1.0.0' } }),
          -32004,
        );
      });

      it('0.1.0 | unsupported (uses the removed tasks/send method) | none | none', async () => {
        expectError(
          await call(ECHO, 'tasks/send', {
            id: uniqueId('t'),
            message: { role: 'user', parts: [{ type: 'text', text: 'old' }] },
          }),
          -32004,
          { dataCode: 'UNSUPPORTED_OPERATION' },
        );
        expectError(
          await call(ECHO, 'tasks/sendSubscribe', {
            id: uniqueId('t'),
            message: { role: 'user', parts: [{ type: 'text', text: 'old' }] },
          }),
          -32004,
        );
        expectError(await call(ECHO, 'message/send', { message: textMessage('x') }, { path: '/v0.1' }), -32004);
      });

      it("Rule 1. Both card locations are always served; each card's `url` is pinned to that card's own version", async () => {
        const agent = await freshAgent('cards-pinned', 'demo:echo', { settings: { defaultA2aVersion: '0.2.6' } });
        const v3 = (await (await fetch(cardUrl(base, agent))).json()) as AgentCard;
        const v2 = (await (await fetch(`${base}/agents/${agent}/.well-known/agent.json`)).json()) as AgentCard;
        expect([v3.protocolVersion, v3.url]).toEqual(['0.3.0', `${base}/agents/${agent}/a2a/v0.3`]);
        expect([v2.protocolVersion, v2.url]).toEqual(['0.2.6', `${base}/agents/${agent}/a2a/v0.2`]);
        const root3 = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as AgentCard;
        const root2 = (await (await fetch(`${base}/.well-known/agent.json`)).json()) as AgentCard;
        expect(root3.url).toBe(`${base}/agents/${ECHO}/a2a/v0.3`);
        expect(root2.url).toBe(`${base}/agents/${ECHO}/a2a/v0.2`);
      });

      it("Rule 2. POST /agents/{id}/a2a serves the agent's configured default version (0.3.0 unless changed)", async () => {
        const agent = await freshAgent('default-version');
        expectError(await call(agent, 'agent/getAuthenticatedExtendedCard', {}), -32007);
        expect(
          resultOf(
            await call(agent, 'message/send', { message: textMessage('x') }, { headers: { 'A2A-Version': '0.3.0' } }),
          ).status.state,
        ).toBe('completed');
        await settings(agent, { defaultA2aVersion: '0.2.6' });
        expectError(await call(agent, 'agent/getAuthenticatedExtendedCard', {}), -32601);
        expectError(
          await call(agent, 'message/send', { message: textMessage('x') }, { headers: { 'A2A-Version': '0.3.0' } }),
          -32004,
        );
        expect(
          resultOf(
            await call(agent, 'message/send', { message: textMessage('x') }, { headers: { 'A2A-Version': '0.2.6' } }),
          ).status.state,
        ).toBe('completed');
        // The versioned paths are unaffected by the default.
        expectError(await call(agent, 'agent/getAuthenticatedExtendedCard', {}, { path: '/v0.3' }), -32007);
        await settings(agent, { defaultA2aVersion: '0.3.0' });
        expectError(await call(agent, 'agent/getAuthenticatedExtendedCard', {}), -32007);
      });

      it('Rule 3. A request for an unsupported protocol version gives -32004', async () => {
        for (const [path, header] of [
          ['/v0.1', undefined],
          ['/v2', undefined],
          ['/v0.3', '0.2.6'],
          ['/v0.2', '0.3.0'],
          ['', '0.1.0'],
          ['', 'banana'],
        ] as const) {
          const r = await call(
            ECHO,
            'message/send',
            { message: textMessage('x') },
            { path, ...(header ? { headers: { 'A2A-Version': header } } : {}) },
          );
          expectError(r, -32004);
        }
      });

      it('Rule 4. The supported methods belong to the message/send generation', async () => {
        for (const m of ['tasks/send', 'tasks/sendSubscribe'])
          expectError(await call(ECHO, m, { id: 't', message: textMessage('x') }), -32004);
        for (const path of ['', '/v0.3', '/v0.2'])
          expect(resultOf(await send(ECHO, textMessage('new generation'), undefined, { path })).status.state).toBe(
            'completed',
          );
      });

      it('Rule 5. Each agent runs the latest production or a pinned version; switching the strategy or changing the pin changes served behavior (and the card `version`) at once', async () => {
        const agent = await freshAgent('versions');
        const cardVersion = async (): Promise<string> =>
          ((await (await fetch(cardUrl(base, agent))).json()) as AgentCard).version;
        expect(await cardVersion()).toBe('1.0.0');
        expect(resultOf(await send(agent, textMessage('v1'))).status.state).toBe('completed');
        await admin('agents.publishVersion', { agentId: agent, version: '2.0.0', runtime: 'demo:failing' });
        // Published but not promoted: still 1.0.0.
        expect(await cardVersion()).toBe('1.0.0');
        await admin('agents.promote', { agentId: agent, version: '2.0.0' });
        expect(await cardVersion()).toBe('2.0.0');
        expect(resultOf(await send(agent, textMessage('v2'))).status.state).toBe('failed');
        await settings(agent, { versionStrategy: 'pinned', pinnedVersion: '1.0.0' });
        expect(await cardVersion()).toBe('1.0.0');
        expect(answerText(resultOf(await send(agent, textMessage('pinned to v1'))))).toBe('pinned to v1');
        await settings(agent, { pinnedVersion: '2.0.0' });
        expect(await cardVersion()).toBe('2.0.0');
        expect(resultOf(await send(agent, textMessage('pinned to v2'))).status.state).toBe('failed');
        await settings(agent, { versionStrategy: 'latest-production', pinnedVersion: '1.0.0' });
        expect(await cardVersion()).toBe('2.0.0');
        await admin('agents.publishVersion', { agentId: agent, version: '3.0.0', runtime: 'demo:echo' });
        await admin('agents.promote', { agentId: agent, version: '3.0.0' });
        expect(await cardVersion()).toBe('3.0.0');
        expect(answerText(resultOf(await send(agent, textMessage('v3'))))).toBe('v3');
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Versioning (legacy)', () => {
      it('Rule 6. The legacy REST task endpoints remain available but are deprecated', async () => {
        const headers = { Authorization: `Bearer ${sut.a2aKey}`, 'Content-Type': 'application/json' };
        const res = await fetch(`${base}/agents/${ECHO}/tasks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ message: { parts: [{ type: 'text', content: 'legacy client' }] } }),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('deprecation')).toBeTruthy();
        expect(res.headers.get('link')).toContain(`<${base}/agents/${ECHO}/a2a>; rel="successor-version"`);
        const task = (await res.json()) as { task_id: string; status: { state: string } };
        expect(task.status.state).toBe('completed');
        // The task is the same task the JSON-RPC interface serves.
        expect(answerText(await getTask(ECHO, task.task_id))).toBe('legacy client');
        const got = await fetch(`${base}/agents/${ECHO}/tasks/${task.task_id}`, { headers });
        expect(got.status).toBe(200);
        expect(got.headers.get('deprecation')).toBeTruthy();
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Deployment agent', () => {
      it('A2A is available only for AI Agents; it is not available for Task Agents', async () => {
        expect((await fetch(cardUrl(base, TASK_AGENT))).status).toBe(404);
        expect((await fetch(`${base}/agents/${TASK_AGENT}/.well-known/agent.json`)).status).toBe(404);
        const r = await send(TASK_AGENT, textMessage('x'));
        expect(r.status).toBe(404);
        expect(r.body.error.message).toBe('A2A is not enabled for this agent');
      });

      it('Removing an agent stops it serving immediately; the rest of the deployment keeps running', async () => {
        const agent = await freshAgent('removed');
        const running = await sendOk(agent, textMessage('before removal'));
        await admin('deployments.removeAgent', { deploymentId: DEPLOYMENT, agentId: agent });
        expect((await send(agent, textMessage('after removal'))).status).toBe(404);
        expect((await call(agent, 'tasks/get', { id: running.id })).status).toBe(404);
        expect((await fetch(cardUrl(base, agent))).status).toBe(404);
        const catalog = (await (
          await fetch(`${base}/deployments/${DEPLOYMENT}/.well-known/agent-catalog.json`)
        ).json()) as { entries: { metadata: Record<string, string> }[] };
        expect(catalog.entries.map((e) => e.metadata['dev.a2a-inbound.agentId'])).not.toContain(agent);
        expect(resultOf(await send(ECHO, textMessage('the rest keeps running'))).status.state).toBe('completed');
        // Also on the other replica, at once.
        expect(
          (
            await rpc(
              `${other}/agents/${agent}/a2a`,
              { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('x') } },
              { key: sut.a2aKey },
            )
          ).status,
        ).toBe(404);
      });

      it('Per-agent inline settings (rate limit, A2A on/off, default A2A version, blocking budget, pushNotifications) take effect at once on every replica', async () => {
        const agent = await freshAgent('settings-replicas');
        const onOther = (method: string, params: unknown): Promise<RpcAnswer> =>
          rpc(`${other}/agents/${agent}/a2a`, { jsonrpc: '2.0', id: 'o', method, params }, { key: sut.a2aKey });
        expect((await onOther('agent/getAuthenticatedExtendedCard', {})).body.error.code).toBe(-32007);
        await settings(agent, { defaultA2aVersion: '0.2.6' });
        expect((await onOther('agent/getAuthenticatedExtendedCard', {})).body.error.code).toBe(-32601);
        await settings(agent, { a2aEnabled: false });
        expect((await onOther('message/send', { message: textMessage('x') })).status).toBe(404);
        await settings(agent, { a2aEnabled: true });
        expect((await onOther('message/send', { message: textMessage('x') })).status).toBe(200);
      });
    });

    // ---------------------------------------------------------------------------------------------------------
    describe('Agent card', () => {
      let card: AgentCard;
      beforeAll(async () => {
        card = (await (await fetch(cardUrl(base, ECHO))).json()) as AgentCard;
      });

      it('protocolVersion | string | the served A2A version', () => {
        expect(card.protocolVersion).toBe('0.3.0');
      });
      it('name | string', () => {
        expect(card.name).toBe('Demo Echo Agent');
      });
      it('description | string', () => {
        expect(card.description).toEqual(expect.any(String));
        expect(card.description.length).toBeGreaterThan(0);
      });
      it("url | string | JSON-RPC endpoint pinned to the card's own version", async () => {
        expect(card.url).toBe(`${base}/agents/${ECHO}/a2a/v0.3`);
        expect(
          resultOf(await call(ECHO, 'message/send', { message: textMessage('via card url') }, { url: card.url })).status
            .state,
        ).toBe('completed');
      });
      it('preferredTransport | string | `JSONRPC`', () => {
        expect(card.preferredTransport).toBe('JSONRPC');
      });
      it('version | string | version of the agent', () => {
        expect(card.version).toBe('1.0.0');
      });
      it('capabilities.streaming | boolean | true when streaming can be used', async () => {
        expect(card.capabilities.streaming).toBe(true);
        const r = await streamOf(ECHO, 'message/stream', { message: textMessage('can stream') });
        expect(r.contentType).toMatch(/^text\/event-stream/);
      });
      it('capabilities.pushNotifications | boolean | false unless an operator enabled it for the agent', async () => {
        expect(card.capabilities.pushNotifications).toBe(false);
        const agent = await freshAgent('push-flag');
        const pushFlag = async (path: string): Promise<boolean | undefined> =>
          ((await (await fetch(`${base}/agents/${agent}/.well-known/${path}`)).json()) as AgentCard).capabilities
            .pushNotifications;
        expect(await pushFlag('agent-card.json')).toBe(false);
        await expect(
          admin('settings.update', { agentId: agent, settings: { pushNotificationsEnabled: true } }),
        ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
        await settings(agent, { pushNotificationsEnabled: true }, 'operator');
        expect(await pushFlag('agent-card.json')).toBe(true);
        expect(await pushFlag('agent.json')).toBe(true);
        const t = await sendOk(agent, textMessage('push now'));
        resultOf(
          await call(agent, 'tasks/pushNotificationConfig/set', {
            taskId: t.id,
            pushNotificationConfig: { url: `https://${pub('h')}/p`, token: 't' },
          }),
        );
        await settings(agent, { pushNotificationsEnabled: false }, 'operator');
        expect(await pushFlag('agent-card.json')).toBe(false);
        expectError(await call(agent, 'tasks/pushNotificationConfig/list', { id: t.id }), -32003);
      });
      it('capabilities.stateTransitionHistory | boolean', async () => {
        expect(typeof card.capabilities.stateTransitionHistory).toBe('boolean');
        if (card.capabilities.stateTransitionHistory) {
          // Advertised, so usable: the task's history keeps every turn (the request, the checkpoint prompt, the reply, the answer).
          const t = await sendOk(APPROVAL, textMessage('history please'));
          await sendOk(APPROVAL, textMessage('approve', { taskId: t.id }));
          const h = (await getTask(APPROVAL, t.id, 100)).history ?? [];
          expect(h.map((m) => m.role)).toEqual(['user', 'agent', 'user', 'agent']);
          expect(textOfParts(h[1]?.parts)).toContain('Approval needed');
        }
      });
      it('defaultInputModes | array of string (media types) | includes `text/plain`, `application/json`', () => {
        expect(card.defaultInputModes).toEqual(expect.arrayContaining(['text/plain', 'application/json']));
        expect(card.defaultInputModes.every((m) => /^[a-z]+\/[a-z0-9.+-]+$/.test(m))).toBe(true);
      });
      it('defaultOutputModes | array of string (media types) | includes `text/plain`, `text/markdown`, `application/json`', () => {
        expect(card.defaultOutputModes).toEqual(
          expect.arrayContaining(['text/plain', 'text/markdown', 'application/json']),
        );
      });
      it('securitySchemes | object | entry `apiKey` with `type` = `http`, `scheme` = `bearer`', () => {
        expect(card.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
      });
      it('security | array of objects | `[{ apiKey: [] }]`', () => {
        expect(card.security).toEqual([{ apiKey: [] }]);
      });
      it('skills | array | each: `id`, `name`, `description` strings, `tags` and `examples` arrays of string', () => {
        expect(card.skills.length).toBeGreaterThan(0);
        for (const s of card.skills) {
          expect(s).toMatchObject({
            id: expect.any(String),
            name: expect.any(String),
            description: expect.any(String),
          });
          expect(s.tags.every((t) => typeof t === 'string')).toBe(true);
          expect((s.examples ?? []).every((t) => typeof t === 'string')).toBe(true);
          expect(Array.isArray(s.examples)).toBe(true);
        }
      });
      it('provider | object | `organization` string, `url` string', () => {
        expect(card.provider).toEqual({ organization: expect.any(String), url: expect.any(String) });
      });
      it('Rule: capabilities are truthful; anything advertised there can actually be used', async () => {
        const c = card.capabilities;
        if (c.streaming)
          expect(
            (await streamOf(ECHO, 'message/stream', { message: textMessage('truthful') })).frames.at(-1)!.data.result
              .final,
          ).toBe(true);
        const t = await sendOk(ECHO, textMessage('truthful push'));
        const push = await call(ECHO, 'tasks/pushNotificationConfig/list', { id: t.id });
        if (c.pushNotifications) resultOf(push);
        else expectError(push, -32003);
        expect(card.supportsAuthenticatedExtendedCard ?? false).toBe(false);
      });
      it('Discovery | GET /agents/{id}/.well-known/agent-card.json and agent.json | public, cacheable, cross-origin', async () => {
        for (const path of ['agent-card.json', 'agent.json']) {
          const res = await fetch(`${base}/agents/${ECHO}/.well-known/${path}`);
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toMatch(/json/);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
          expect(res.headers.get('cache-control')).toBeTruthy();
          const etag = res.headers.get('etag')!;
          expect(
            (await fetch(`${base}/agents/${ECHO}/.well-known/${path}`, { headers: { 'If-None-Match': etag } })).status,
          ).toBe(304);
        }
        expect((await fetch(cardUrl(base, 'no-such-agent'))).status).toBe(404);
      });
      it('Discovery | GET deployment agent catalog | list of A2A-enabled agents with their cards', async () => {
        const res = await fetch(`${base}/deployments/${DEPLOYMENT}/.well-known/agent-catalog.json`);
        expect(res.status).toBe(200);
        const cat = (await res.json()) as { entries: { data: AgentCard; metadata: Record<string, string> }[] };
        const ids = cat.entries.map((e) => e.metadata['dev.a2a-inbound.agentId']);
        expect(ids).toEqual(expect.arrayContaining([ECHO, APPROVAL, FAILING]));
        expect(ids).not.toContain(TASK_AGENT);
        const echo = cat.entries.find((e) => e.metadata['dev.a2a-inbound.agentId'] === ECHO)!;
        expect(echo.data).toEqual(card);
      });
    });
  });
}
