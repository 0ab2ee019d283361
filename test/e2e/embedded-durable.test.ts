// The durable embedded mode as a user runs it (node embedded/dist/main.js on a data directory): SIGKILL under
// a mixed load, a restart on the same directory, and everything that was answered is still there (issue 22).
import { spawn, execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LmdbDatabase, LmdbDocumentStore } from '@a2a-inbound/adapter-lmdb';
import { rpc, sse, textMessage, type SseFrame } from '@a2a-inbound/testing';
import { verifySignature } from '@a2a-inbound/webhooks';
import { selfSignedCert } from '../../services/webhooks/test/support/receiver';

const root = join(__dirname, '..', '..');
const MAIN = join(root, 'embedded/dist/main.js');

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(env: Record<string, string>, script = MAIN): Started {
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Workspace packages compiled in from TypeScript, third-party ones from node_modules (as scripts/build.mjs). */
const externalThirdParty: Plugin = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@a2a-inbound/') ? undefined : { path: args.path, external: true },
    );
  },
};

interface Hit {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Answered 200; false while held (and for good when the sender died first). */
  answered: boolean;
}

/** An HTTPS push receiver on 127.0.0.1 that answers 200, or holds its answers while `hold(true)`. */
async function holdingReceiver(tls: { cert: string; key: string }) {
  const hits: Hit[] = [];
  let holding = false;
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered: false };
      hits.push(hit);
      if (holding) return; // in flight until the sender gives up or dies
      hit.answered = true;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    hold: (on: boolean) => void (holding = on),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The banner: from "a2a-inbound is running" to the blank line that ends it. */
async function banner(p: Started): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const out = p.stdout();
    const at = out.indexOf('a2a-inbound is running');
    const end = at >= 0 ? out.indexOf('\n\n', at) : -1;
    if (end > 0) return out.slice(at, end);
    if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`no banner:\n${out}\n${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const baseOf = (text: string): string => /base URL:\s+(http:\/\/\S+)/.exec(text)![1]!;

async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const send = (base: string, key: string, agent: string, messageId: string, text: string) =>
  rpc(
    `${base}/agents/${agent}/a2a`,
    { jsonrpc: '2.0', id: messageId, method: 'message/send', params: { message: { ...textMessage(text), messageId } } },
    { key },
  );

const getTask = async (base: string, key: string, agent: string, id: string): Promise<any> =>
  (await rpc(`${base}/agents/${agent}/a2a`, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id } }, { key }))
    .body.result;

const answerText = (task: any): string =>
  (task.artifacts ?? []).flatMap((a: any) => a.parts.map((p: any) => p.text ?? '')).join('');

describe('durable embedded mode (node embedded/dist/main.js on a data directory)', () => {
  const procs: Started[] = [];
  const dirs: string[] = [];
  beforeAll(() => {
    if (!existsSync(MAIN)) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  }, 120_000);
  afterEach(() => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    procs.length = 0;
  });
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('SIGKILL under mixed load, restart on the same data directory: nothing answered is lost, nothing stays working, streams resume without gap or repeat, nothing is charged twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'a2a-durable-'));
    dirs.push(dataDir);
    const first = run({ DATA_DIR: dataDir });
    procs.push(first);
    const text1 = await banner(first);
    const base1 = baseOf(text1);
    const a2aKey = /a2a key:\s+(\S+)/.exec(text1)![1]!;
    const admin = /admin token:\s+(\S+)/.exec(text1)![1]!;
    const operator = /operator token:\s+(\S+)/.exec(text1)![1]!;

    // Control-plane state made through the management API.
    const dev = await api(base1, admin, 'POST', '/users', { email: 'dev@example.com', role: 'developer' });
    const key2 = await api(base1, admin, 'POST', '/keys', { name: 'second', scope: 'a2a' });
    const agent = await api(base1, admin, 'POST', '/agents', { name: 'kept-agent', type: 'AI Agent' });
    await api(base1, admin, 'POST', `/agents/${agent.id}/versions`, { version: '1.0.0', runtime: 'demo:echo' });
    await api(base1, admin, 'POST', `/agents/${agent.id}/versions/1.0.0/promote`);
    await api(base1, admin, 'POST', '/deployments/demo-deployment/agents', {
      agentId: agent.id,
      settings: { a2aEnabled: true },
    });
    await api(base1, operator, 'PATCH', `/deployments/demo-deployment/agents/${agent.id}/settings`, {
      pushNotificationsEnabled: true,
    });
    await api(base1, admin, 'PUT', '/secrets/kept-secret', { value: 'sekret-value-1' });
    const credits0 = (await api(base1, admin, 'GET', '/credits')).credits as number;

    // Completed tasks, one with a push config; one waiting for input.
    const completed: { id: string; messageId: string; text: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await send(base1, a2aKey, i % 2 ? agent.id : 'demo-echo', `done-${i}`, `answer ${i}`);
      expect(r.body.result.status.state).toBe('completed');
      completed.push({ id: r.body.result.id, messageId: `done-${i}`, text: `answer ${i}` });
    }
    const push = await rpc(
      `${base1}/agents/${agent.id}/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/pushNotificationConfig/set',
        params: {
          taskId: completed[1]!.id,
          pushNotificationConfig: { id: 'kept', url: 'https://93.184.216.34/hook', token: 'push-token-1' },
        },
      },
      { key: a2aKey },
    );
    expect(push.body.error).toBeUndefined();
    const waiting = (await send(base1, a2aKey, 'demo-approval', 'wait-1', 'transfer 10 credits')).body.result;
    expect(waiting.status.state).toBe('input-required');
    const creditsBeforeLoad = (await api(base1, admin, 'GET', '/credits')).credits as number;
    expect(creditsBeforeLoad).toBeLessThan(credits0);

    // The load at the kill: long streams in flight, and sends in a loop on four connections.
    const streams = [0, 1, 2].map((i) => {
      const frames: SseFrame[] = [];
      const done = sse(
        `${base1}/agents/demo-slow/a2a`,
        {
          jsonrpc: '2.0',
          id: i,
          method: 'message/stream',
          params: {
            message: {
              ...textMessage('long'),
              messageId: `stream-${i}`,
              parts: [
                { kind: 'text', text: 'long' },
                { kind: 'data', data: { workMs: 120_000 } },
              ],
            },
          },
        },
        { key: a2aKey, stopAfter: (f) => (frames.push(f), false) },
      ).catch(() => undefined); // cut by the kill
      return { frames, done };
    });
    let killed = false;
    const answered: { id: string; messageId: string; text: string }[] = [];
    const attempted: string[] = [];
    const loops = [0, 1, 2, 3].map(async (c) => {
      for (let i = 0; !killed; i++) {
        const messageId = `load-${c}-${i}`;
        attempted.push(messageId);
        try {
          const r = await send(base1, a2aKey, 'demo-echo', messageId, `load ${c} ${i}`);
          if (r.body.result?.status?.state === 'completed')
            answered.push({ id: r.body.result.id, messageId, text: `load ${c} ${i}` });
        } catch {
          return; // the connection died with the process
        }
      }
    });
    const until = Date.now() + 20_000;
    while ((streams.some((s) => s.frames.length === 0) || answered.length < 20) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    first.child.kill('SIGKILL');
    killed = true;
    expect((await first.exited).signal).toBe('SIGKILL');
    await Promise.all([...loops, ...streams.map((s) => s.done)]);
    expect(answered.length).toBeGreaterThanOrEqual(20);

    // The same data directory: the deployment is reused and no credentials are printed.
    const second = run({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    procs.push(second);
    const text2 = await banner(second);
    const base = baseOf(text2);
    expect(text2).not.toMatch(/a2a key:|admin token:|usr_|a2a_/);
    expect(text2).toMatch(/credentials: +kept from an earlier start \(printed once by the first start, \d{4}-/);
    expect(text2).toContain('npm run admin -- token --role admin');
    // Where the kill cut the sends is timing: one send is left exactly between its messageId claim and its
    // task, as the killed process leaves it, made just before this process began to serve (the time it logs).
    // Written now (LMDB takes writers from several processes) so that the claim is younger than
    // CLAIM_STALE_MS (10 s) when the client re-sends it, whatever the start-up took on a loaded machine.
    const serving = JSON.parse(
      second
        .stdout()
        .split('\n')
        .find((l) => l.includes('a resend takes them over at once'))!,
    ) as { since: number };
    const store = new LmdbDocumentStore(LmdbDatabase.open(join(dataDir, 'db')));
    await (
      await store.collection<{ subscriptionId: string; messageId: string; taskId: string; createdAtMs: number }>({
        name: 'message_ids',
      })
    ).insert('demo-subscription:cut-at-claim', {
      subscriptionId: 'demo-subscription',
      messageId: 'cut-at-claim',
      taskId: 'task-of-cut-at-claim',
      createdAtMs: serving.since - 1,
    });
    await store.close();
    // The client re-sends it: this process owns the data directory alone, so the claim is dead and taken over
    // at once (it used to be waited for until 10 s old: a -32603, or an answer seconds late).
    const resentAt = Date.now();
    const resent = await send(base, a2aKey, 'demo-echo', 'cut-at-claim', 'again');
    expect(Date.now() - resentAt).toBeLessThan(3_000);
    expect(resent.body.result?.status?.state, JSON.stringify(resent.body)).toBe('completed');
    expect(resent.body.result.id).toBe('task-of-cut-at-claim');

    // Keys, users, agents, versions, secrets and push configs.
    for (const k of [a2aKey, key2.key as string])
      expect((await send(base, k, 'demo-echo', `after-${k.slice(-6)}`, 'hi')).body.result.status.state).toBe(
        'completed',
      );
    expect((await api(base, dev.token as string, 'GET', '/me')).email).toBe('dev@example.com');
    expect((await api(base, admin, 'GET', '/agents')).agents.map((a: any) => a.id)).toContain(agent.id);
    expect((await api(base, admin, 'GET', `/agents/${agent.id}`)).versions).toEqual(
      expect.arrayContaining([expect.objectContaining({ version: '1.0.0' })]),
    );
    expect((await fetch(`${base}/agents/${agent.id}/.well-known/agent-card.json`)).status).toBe(200);
    expect(JSON.stringify(await api(base, admin, 'GET', '/secrets'))).toContain('kept-secret');
    const pushGet = await rpc(
      `${base}/agents/${agent.id}/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/pushNotificationConfig/get',
        params: { id: completed[1]!.id, pushNotificationConfigId: 'kept' },
      },
      { key: a2aKey },
    );
    expect(pushGet.body.result.pushNotificationConfig).toMatchObject({ id: 'kept', url: 'https://93.184.216.34/hook' });

    // Every answered task is intact; every task of the load is terminal (none stays working).
    for (const t of [...completed, ...answered]) {
      const agentOf = t.messageId.startsWith('done-') && Number(t.messageId.slice(5)) % 2 ? agent.id : 'demo-echo';
      const task = await getTask(base, a2aKey, agentOf, t.id);
      expect(task.status.state).toBe('completed');
      expect(answerText(task)).toBe(t.text);
    }
    // A repeat of a messageId answers the same task and charges nothing (idempotency across the restart).
    const creditsAfterRestart = (await api(base, admin, 'GET', '/credits')).credits as number;
    for (const t of answered.slice(0, 10)) {
      const again = await send(base, a2aKey, 'demo-echo', t.messageId, t.text);
      expect(again.body.result.id).toBe(t.id);
    }
    expect((await api(base, admin, 'GET', '/credits')).credits).toBe(creditsAfterRestart);
    // Each load message that reached the service was charged once at most: at least the answered ones, at most
    // every attempt (plus the three streams, the two sends after the restart and the cut-off one re-sent).
    const spent = creditsBeforeLoad - creditsAfterRestart;
    const cost = (await api(base, admin, 'GET', '/credits')).costPerInvocation as number;
    expect(spent).toBeGreaterThanOrEqual((answered.length + 2) * cost);
    expect(spent).toBeLessThanOrEqual((attempted.length + 3 + 2 + 1) * cost);
    // The sends whose answer the kill cut off: sent again by messageId, each ends terminal at once (no retry
    // of -32603), none is working.
    for (const messageId of attempted.filter((m) => !answered.some((a) => a.messageId === m))) {
      const r = await send(base, a2aKey, 'demo-echo', messageId, 'again');
      expect(['completed', 'failed'], JSON.stringify(r.body)).toContain(r.body.result?.status?.state);
    }

    // The streams in flight: resumed by Last-Event-ID, they continue right after the last frame received
    // (no gap, no repeat) and end failed with a reason that names the stop.
    for (const s of streams) {
      const taskId = s.frames[0]!.data.result.id ?? s.frames[0]!.data.result.taskId;
      const lastId = Number(s.frames.at(-1)!.id);
      expect(lastId).toBeGreaterThan(0);
      const resumed = await sse(
        `${base}/agents/demo-slow/a2a`,
        { jsonrpc: '2.0', id: 9, method: 'tasks/resubscribe', params: { id: taskId } },
        { key: a2aKey, headers: { 'Last-Event-ID': String(lastId) } },
      );
      const ids = resumed.frames.map((f) => Number(f.id));
      expect(ids[0]).toBe(lastId + 1);
      ids.forEach((id, i) => expect(id).toBe(lastId + 1 + i));
      const last = resumed.frames.at(-1)!.data.result;
      expect(last.final).toBe(true);
      expect(last.status.state).toBe('failed');
      expect(JSON.stringify(last.status.message)).toContain('stopped while this run was in flight');
    }
    // The task that waited for input still does, and goes on.
    expect((await getTask(base, a2aKey, 'demo-approval', waiting.id)).status.state).toBe('input-required');
    const reply = await rpc(
      `${base}/agents/demo-approval/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { ...textMessage('approve'), taskId: waiting.id, contextId: waiting.contextId } },
      },
      { key: a2aKey },
    );
    expect(reply.body.result.status.state).toBe('completed');

    // One process per data directory: a second start on it refuses, naming the holder.
    const third = run({ DATA_DIR: dataDir });
    procs.push(third);
    expect((await third.exited).code).toBe(1);
    expect(third.stderr() + third.stdout()).toContain(`in use by process ${second.child.pid}`);

    // More credentials while it runs: npm run admin (straight into the database).
    const minted = spawnSync(process.execPath, [join(root, 'embedded/dist/admin.js'), 'token', '--role', 'admin'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(minted.status).toBe(0);
    const mintedToken = /^(usr_\S+)$/m.exec(minted.stdout)![1]!;
    expect((await api(base, mintedToken, 'GET', '/me')).role).toBe('admin');

    // npm run admin -- compact is offline: refused while the server holds the directory, then done.
    const adminCli = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'embedded/dist/admin.js'), ...args], {
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
        encoding: 'utf8',
      });
    const busy = adminCli('compact');
    expect(busy.status).toBe(1);
    expect(busy.stderr).toContain(`in use by process ${second.child.pid}`);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const compacted = adminCli('compact');
    expect(compacted.status, compacted.stderr).toBe(0);
    expect(compacted.stdout).toMatch(/compacted .*a2a\.mdb: [\d.]+ MB -> [\d.]+ MB/);
    expect(readdirSync(dataDir)).not.toContain('embedded.pid'); // the lock is released
    const reopened = new LmdbDocumentStore(LmdbDatabase.open(join(dataDir, 'db')));
    const claims = await reopened.collection<{ taskId: string }>({ name: 'message_ids' });
    expect((await claims.get('demo-subscription:cut-at-claim'))?.doc.taskId).toBe('task-of-cut-at-claim');
    await reopened.close();

    // npm run reset: refuses without a terminal unless --yes, then empties the directory.
    const refused = spawnSync(process.execPath, [join(root, 'scripts/reset.mjs')], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(refused.status).toBe(2);
    expect(readdirSync(dataDir)).toContain('db');
    const reset = spawnSync(process.execPath, [join(root, 'scripts/reset.mjs'), '--yes'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(reset.status).toBe(0);
    expect(readdirSync(dataDir)).toEqual([]);
  }, 180_000);

  it('SIGKILL with a push in flight: after the restart it is delivered, signed, once per delivery id; what was delivered before is not sent again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-durable-push-'));
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    // The durable embedded mode with test-only push egress (loopback receiver, its CA): a bundle of the harness.
    const harness = join(dir, 'harness.cjs');
    await build({
      entryPoints: [join(__dirname, 'durable-push-harness.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile: harness,
      logLevel: 'silent',
      plugins: [externalThirdParty],
    });
    const tls = await selfSignedCert();
    writeFileSync(join(dir, 'ca.pem'), tls.cert);
    const receiver = await holdingReceiver(tls);
    try {
      const start = async (): Promise<{ p: Started; baseUrl: string; credentials: any }> => {
        const p = run(
          { DATA_DIR: dataDir, HARNESS_CA_FILE: join(dir, 'ca.pem'), NODE_PATH: join(root, 'node_modules') },
          harness,
        );
        procs.push(p);
        const deadline = Date.now() + 60_000;
        for (;;) {
          const line = p
            .stdout()
            .split('\n')
            .find((l) => l.startsWith('{"baseUrl"'));
          if (line) return { p, ...(JSON.parse(line) as { baseUrl: string; credentials: any }) };
          if (Date.now() > deadline || p.child.exitCode !== null)
            throw new Error(`no start:\n${p.stdout()}\n${p.stderr()}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      const first = await start();
      const { a2aKey, operatorToken } = first.credentials as { a2aKey: string; operatorToken: string };
      await api(first.baseUrl, operatorToken, 'PATCH', '/deployments/demo-deployment/agents/demo-slow/settings', {
        pushNotificationsEnabled: true,
      });
      const TOKEN = 'push-token-durable';
      /** A task of demo-slow that works 6 s (long enough on a loaded machine), with a push config set meanwhile. */
      const pushedTask = async (configId: string): Promise<string> => {
        const r = await rpc(
          `${first.baseUrl}/agents/demo-slow/a2a`,
          {
            jsonrpc: '2.0',
            id: configId,
            method: 'message/send',
            params: {
              message: {
                ...textMessage('work'),
                parts: [
                  { kind: 'text', text: 'work' },
                  { kind: 'data', data: { workMs: 6_000 } },
                ],
              },
              configuration: { blocking: false },
            },
          },
          { key: a2aKey },
        );
        const taskId = r.body.result.id as string;
        const set = await rpc(
          `${first.baseUrl}/agents/demo-slow/a2a`,
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tasks/pushNotificationConfig/set',
            params: {
              taskId,
              pushNotificationConfig: {
                id: configId,
                url: `https://hook.public.example:${receiver.port}/hook`,
                token: TOKEN,
              },
            },
          },
          { key: a2aKey },
        );
        expect(set.body.error, JSON.stringify(set.body)).toBeUndefined();
        return taskId;
      };
      const completedPush = (taskId: string, answered: boolean) => (h: Hit) =>
        JSON.parse(h.body).id === taskId && JSON.parse(h.body).status.state === 'completed' && h.answered === answered;

      // Delivered before the kill: answered 200, so never sent again.
      const before = await pushedTask('before');
      await expect.poll(() => receiver.hits.some(completedPush(before, true)), { timeout: 60_000 }).toBe(true);
      // The receiver now holds its answers: the push of a task that just completed is in flight at the kill.
      receiver.hold(true);
      const cut = await pushedTask('cut');
      await expect.poll(() => receiver.hits.some(completedPush(cut, false)), { timeout: 60_000 }).toBe(true);
      first.p.child.kill('SIGKILL');
      expect((await first.p.exited).signal).toBe('SIGKILL');
      receiver.hold(false);
      const killedAt = receiver.hits.length;

      const second = await start();
      expect(second.credentials).toBeNull(); // the same deployment
      await expect
        .poll(() => receiver.hits.slice(killedAt).some(completedPush(cut, true)), { timeout: 60_000 })
        .toBe(true);
      await new Promise((r) => setTimeout(r, 1_500)); // nothing else comes
      const answered = receiver.hits.filter((h) => h.answered);
      for (const h of answered) {
        expect(verifySignature(h.body, TOKEN, String(h.headers['x-a2a-signature']))).toBe(true);
        expect(String(h.headers['x-a2a-delivery-id'])).toMatch(/^[^:]+:\d+:(before|cut)$/);
      }
      // Once per delivery id at the receiver: the cut push once (after the restart), the earlier ones not again.
      const ids = answered.map((h) => String(h.headers['x-a2a-delivery-id']));
      expect(new Set(ids).size).toBe(ids.length);
      expect(answered.filter(completedPush(cut, true))).toHaveLength(1);
      expect(receiver.hits.slice(killedAt).some((h) => JSON.parse(h.body).id === before)).toBe(false);
      second.p.child.kill('SIGKILL');
      await second.p.exited;
    } finally {
      await receiver.close();
    }
  }, 240_000);

  it('listens on 127.0.0.1 only by default, and the banner says so', async () => {
    const p = run({ STORE: 'memory' });
    procs.push(p);
    const text = await banner(p);
    const listening = /listening on:\s+(http:\/\/\S+)/.exec(text)![1]!;
    expect(listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(listening).port);
    const reach = (host: string): Promise<boolean> =>
      new Promise((resolve) => {
        const s = connect({ host, port }, () => {
          s.destroy();
          resolve(true);
        });
        s.once('error', () => resolve(false));
      });
    expect(await reach('127.0.0.1')).toBe(true);
    // Every other address of this machine is refused.
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const address of others) expect(await reach(address)).toBe(false);
    p.child.kill('SIGTERM');
    await p.exited;
  }, 60_000);
});
