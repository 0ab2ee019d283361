import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { PendingCommit } from '@a2a-inbound/adapter-lmdb';
import { durableEngines, startSystem, type DurableEngines, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { rpc, sse, textMessage, type SseFrame } from '@a2a-inbound/testing';

/**
 * The commit barrier of the durable embedded mode (ADR 0069): the writes of a send are one LMDB commit (the
 * turn's group commit), and its answer leaves the process only once that commit is made. A commit held back
 * holds the answer back; a commit that fails fails the answer (its writes are lost with it).
 */
describe('durable embedded mode: one commit per send, and no answer before its commit', () => {
  let dir: string;
  let engines: DurableEngines;
  let system: System;
  let key: string;
  /** While set, the turns' commits wait here instead of running at the end of their turn. */
  let hold = false;
  const held: PendingCommit[] = [];
  const release = (): void => {
    hold = false;
    for (const txn of held.splice(0)) txn.commit();
  };
  const send = (text: string, messageId?: string) =>
    rpc(
      `${system.baseUrl}/agents/demo-echo/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { ...textMessage(text), ...(messageId ? { messageId } : {}) } },
      },
      { key },
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'commit-barrier-'));
    engines = await durableEngines(dir, {
      scheduleCommit: (txn) => {
        if (hold) held.push(txn);
        else txn.whenQuiet();
      },
      // A loaded test machine can stretch a lone send past the default 10 ms, and the count below with it.
      maxOpenMs: 1_000,
    });
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1' },
      log: silentLogger(),
      engines,
      soleOwner: true,
    });
    key = system.tasks.seed!.credentials!.a2aKey;
  }, 120_000);
  afterEach(release);
  afterAll(async () => {
    release();
    await system?.close();
    for (const c of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
      await c.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('a lone blocking send is one commit: its claim, credits, run marker, task, apply, log append and push outbox together', async () => {
    for (let i = 0; i < 5; i++) expect((await send(`warm-up ${i}`)).status).toBe(200);
    const sends = 40;
    const before = engines.database.commits;
    for (let i = 0; i < sends; i++) {
      const res = await send(`counted ${i}`);
      expect((res.body as { result?: Task }).result?.status.state).toBe('completed');
    }
    const commits = engines.database.commits - before;
    process.stdout.write(`commits per lone send: ${commits / sends}\n`);
    // Six commits each before ADR 0069; the outbox's settling deletes ride later commits (never one of their own).
    expect(commits / sends).toBeLessThanOrEqual(1.1);
    expect(commits).toBeGreaterThanOrEqual(sends);
  });

  it('holds the answer while its commit is held back, though every read of the process already sees the task', async () => {
    const rows = engines.database.docs.getCount();
    hold = true;
    let answered = false;
    const answer = send('held back').then((res) => {
      answered = true;
      return res;
    });
    await expect.poll(() => held.length).toBeGreaterThan(0);
    // The send ran to its end (its claim, task and run marker are read back by this process) but nothing was
    // answered.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engines.database.docs.getCount()).toBeGreaterThan(rows);
    expect(answered).toBe(false);
    release();
    const res = await answer;
    expect(res.status).toBe(200);
    const task = (res.body as { result?: Task }).result!;
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'held back' }]);
  });

  it('holds the stream frames (SSE) while their commit is held back, then sends them all, in order', async () => {
    hold = true;
    const arrived: SseFrame[] = [];
    const stream = sse(
      `${system.baseUrl}/agents/demo-echo/a2a`,
      { jsonrpc: '2.0', id: 7, method: 'message/stream', params: { message: textMessage('streamed') } },
      {
        key,
        stopAfter: (f) => {
          arrived.push(f);
          return false;
        },
      },
    );
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(arrived).toEqual([]);
    release();
    const { status, frames } = await stream;
    expect(status).toBe(200);
    expect(frames.length).toBeGreaterThan(1);
    const last = frames.at(-1)!.data as { result?: { final?: boolean; status?: { state: string } } };
    expect(last.result?.final).toBe(true);
    expect(last.result?.status?.state).toBe('completed');
  });

  it('fails the answer when its commit fails; nothing of the send is kept, so the same messageId runs again', async () => {
    hold = true;
    const messageId = `failed-commit-${Date.now()}`;
    const answer = send('lost', messageId);
    await expect.poll(() => held.length).toBeGreaterThan(0);
    hold = false;
    for (const txn of held.splice(0)) txn.fail(new Error('injected: the disk is full'));
    const res = await answer;
    const body = res.body as { result?: Task; error?: { code: number } };
    expect(body.result).toBeUndefined();
    expect(body.error?.code).toBe(-32603);
    const again = (await send('lost', messageId)).body as { result?: Task };
    expect(again.result?.status.state).toBe('completed');
  });
});
