import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rpc, sse, textMessage } from '@a2a-inbound/testing';
import { ScriptedProvider } from '../agents/scripted-provider';

const root = join(__dirname, '..', '..');
const MAIN = join(root, 'embedded/dist/main.js');
const DEMO_AI_AGENTS = ['demo-echo', 'demo-slow', 'demo-approval', 'demo-failing'];

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function run(script: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, [script], {
    // In memory unless a test names a data directory: parallel runs never share the default one.
    env: { PATH: process.env.PATH ?? '', STORE: 'memory', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function banner(p: Started): Promise<string> {
  const deadline = Date.now() + 30_000;
  // The banner ends with the curl example of the a2a key, then a blank line.
  while (!/a2a key:[\s\S]*curl[\s\S]*\n\n/.test(p.stdout())) {
    if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`no banner:\n${p.stdout()}\n${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return p.stdout();
}

const count = (text: string, re: RegExp): number => [...text.matchAll(new RegExp(re.source, 'gm'))].length;

describe('embedded mode as a process (node embedded/dist/main.js)', () => {
  const procs: Started[] = [];
  beforeAll(() => {
    // `npm test` builds first; a bare `npx vitest run` on a fresh clone builds here.
    if (!existsSync(MAIN)) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  }, 60_000);
  afterEach(() => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    procs.length = 0;
  });

  it('prints the banner with the demo credentials once, and exits 0 on SIGTERM within a few seconds with an SSE stream open', async () => {
    const p = run(MAIN, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    procs.push(p);
    const text = await banner(p);
    const base = /base URL:\s+(http:\/\/\S+)/.exec(text)?.[1];
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(count(text, /base URL:/)).toBe(1);
    expect(text).toMatch(/deployment id:\s+demo-deployment$/m);
    for (const id of DEMO_AI_AGENTS)
      expect(count(text, new RegExp(`^\\s+${id}\\s+${base}/agents/${id}/\\.well-known/agent-card\\.json$`))).toBe(1);
    expect(count(text, /^\s+a2a key:\s+\S+$/)).toBe(1);
    expect(count(text, /^\s+invoke key:\s+\S+$/)).toBe(1);
    const a2aKey = /a2a key:\s+(\S+)/.exec(text)![1]!;
    // The printed card URL and key work.
    expect((await fetch(`${base}/agents/demo-echo/.well-known/agent-card.json`)).status).toBe(200);

    // A long run streamed over SSE: its first frame arrives, then SIGTERM.
    let firstFrame!: () => void;
    const gotFirst = new Promise<void>((resolve) => (firstFrame = resolve));
    const streamed = sse(
      `${base}/agents/demo-slow/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: {
          message: {
            ...textMessage('long'),
            parts: [
              { kind: 'text', text: 'long' },
              { kind: 'data', data: { workMs: 60_000 } },
            ],
          },
        },
      },
      { key: a2aKey, stopAfter: (_f, all) => (all.length === 1 && firstFrame(), false) },
    );
    await gotFirst;
    const signalled = Date.now();
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    const ms = exit.at - signalled;
    // The stream ended cleanly (the response was ended, not cut: sse() would throw), without a final frame.
    const frames = (await streamed).frames;
    expect(frames.length).toBeGreaterThanOrEqual(1);
    expect(frames.some((f) => f.data?.result?.final === true)).toBe(false);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(ms).toBeLessThan(5_000);
    console.log(`embedded: exit 0 ${ms} ms after SIGTERM with an SSE stream open`);
    expect(p.stderr()).toBe('');
    // Everything closed once, without errors (LOG_LEVEL=warn: only warnings and errors are logged).
    expect(p.stdout()).not.toMatch(/"level":"error"|close failed/);
    // Once: nothing more is printed after the banner about credentials.
    expect(count(p.stdout(), /a2a key:/)).toBe(1);

    // A second start is a fresh in-memory data set: the credentials are created, and printed, again.
    const q = run(MAIN, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    procs.push(q);
    const again = await banner(q);
    expect(count(again, /^\s+a2a key:\s+\S+$/)).toBe(1);
    expect(count(again, /^\s+invoke key:\s+\S+$/)).toBe(1);
    expect(again).toMatch(/deployment id:\s+demo-deployment$/m);
    expect(/a2a key:\s+(\S+)/.exec(again)![1]).not.toBe(a2aKey);
    q.child.kill('SIGTERM');
    expect((await q.exited).code).toBe(0);
  }, 60_000);

  it('with OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL it seeds a model agent and prints its card URL (never the key)', async () => {
    const provider = await new ScriptedProvider().start();
    try {
      const apiKey = 'sk-banner-Xy71-never-printed';
      const p = run(MAIN, {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        OPENAI_BASE_URL: `${provider.url}/v1`,
        OPENAI_API_KEY: apiKey,
        OPENAI_MODEL: 'local-llm',
      });
      procs.push(p);
      const text = await banner(p);
      const base = /base URL:\s+(http:\/\/\S+)/.exec(text)![1]!;
      const cardUrl = /model agent \(OPENAI_BASE_URL\):\s+(\S+)$/m.exec(text)?.[1];
      expect(cardUrl).toBe(`${base}/agents/demo-model/.well-known/agent-card.json`);
      const card = (await (await fetch(cardUrl!)).json()) as { name: string; url: string };
      expect(card.name).toBe('Model Agent (local-llm)');
      const a2aKey = /a2a key:\s+(\S+)/.exec(text)![1]!;
      const answer = await rpc(
        card.url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: textMessage('hello model'), configuration: { blocking: true } },
        },
        { key: a2aKey },
      );
      expect(answer.body.result.status.state).toBe('completed');
      expect(provider.requests.at(-1)!.authorization).toBe(`Bearer ${apiKey}`);
      p.child.kill('SIGTERM');
      await p.exited;
      expect(p.stdout()).not.toContain(apiKey);
      expect(p.stderr()).not.toContain(apiKey);
    } finally {
      await provider.close();
    }
  });

  it('a service started with bad configuration exits 1 and lists every problem on stderr', async () => {
    const p = run(join(root, 'services/gateway/dist/main.js'), { PORT: 'abc', BODY_LIMIT_BYTES: '-1' });
    procs.push(p);
    const exit = await p.exited;
    expect(exit.code).toBe(1);
    expect(p.stderr()).toContain('PORT must be an integer, got "abc"');
    expect(p.stderr()).toContain('BODY_LIMIT_BYTES must be >= 1024, got -1');
    expect(p.stdout()).toBe('');
  });
});
