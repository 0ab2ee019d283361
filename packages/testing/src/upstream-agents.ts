import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard, Message, Part, Task, TaskState } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';
import express from 'express';

/** What an upstream agent received (for assertions). */
export interface Received {
  agent: string;
  message: Message;
  authorization: string | undefined;
  apiKey: string | undefined;
}

/**
 * Real A2A agents built with `@a2a-js/sdk` (the server side), at `/agents/<name>` on one loopback HTTP server,
 * for the `a2a-upstream` runtime's tests:
 * - `stream`: working, three text deltas (`append`), completed; its text echoes the input, the files and the
 *   upstream context id it got;
 * - `appending`: as `stream`, but its first chunk already says `append: true`;
 * - `input`: stops in `input-required` ("What is your name?"); the reply on the same task completes it;
 * - `failing`: ends `failed` with a reason;
 * - `slow`: works until `tasks/cancel` (records the cancel);
 * - `blocking`: a card without streaming that accepts text only and names one skill (`direct`): `message/send`
 *   answers a direct Message;
 * - `secured`: answers 401 without `Authorization: Bearer upstream-token`.
 */
export interface UpstreamAgents {
  base: string;
  port: number;
  received: Received[];
  canceled: string[];
  /** Agent card requests, by agent. */
  cardFetches: Record<string, number>;
  /** Every request this server got (card reads and calls alike), with its headers. */
  requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  url(agent: string): string;
  close(): Promise<void>;
}

const text = (parts: readonly Part[]): string =>
  parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join(' ');

function agentMessage(ctx: RequestContext, t: string): Message {
  return {
    kind: 'message',
    role: 'agent',
    messageId: randomUUID(),
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    parts: [{ kind: 'text', text: t }],
  };
}

/** A direct answer (no task). */
function directMessage(ctx: RequestContext, t: string): Message {
  return {
    kind: 'message',
    role: 'agent',
    messageId: randomUUID(),
    contextId: ctx.contextId,
    parts: [{ kind: 'text', text: t }],
  };
}

function status(ctx: RequestContext, state: TaskState, final: boolean, message?: Message) {
  return {
    kind: 'status-update' as const,
    taskId: ctx.taskId,
    contextId: ctx.contextId,
    status: { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) },
    final,
  };
}

function newTask(ctx: RequestContext): Task {
  return {
    kind: 'task',
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: { state: 'submitted', timestamp: new Date().toISOString() },
    history: [ctx.userMessage],
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startUpstreamAgents(): Promise<UpstreamAgents> {
  const received: Received[] = [];
  const canceled: string[] = [];
  const app = express();
  // Listening first: the cards carry the port.
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const slowRuns = new Map<string, () => void>();
  const cardFetches: Record<string, number> = {};
  const requests: UpstreamAgents['requests'] = [];
  app.use((req, _res, next) => {
    requests.push({ method: req.method, path: req.path, headers: req.headers });
    const m = /^\/agents\/([^/]+)\/\.well-known\/agent-card\.json$/.exec(req.path);
    if (m && req.method === 'GET') cardFetches[m[1]!] = (cardFetches[m[1]!] ?? 0) + 1;
    next();
  });

  const streamed = (append: (i: number) => boolean): AgentExecutor => ({
    execute: async (ctx, bus) => {
      if (!ctx.task) bus.publish(newTask(ctx));
      bus.publish(status(ctx, 'working', false));
      const files = ctx.userMessage.parts
        .filter((p): p is Extract<Part, { kind: 'file' }> => p.kind === 'file')
        .map((p) =>
          'bytes' in p.file
            ? `${p.file.name ?? '?'}:${p.file.mimeType ?? '?'}:${Buffer.from(p.file.bytes, 'base64').toString('utf8')}`
            : `${p.file.name ?? '?'}:${p.file.uri}`,
        );
      const answer = `upstream heard: ${text(ctx.userMessage.parts)}${files.length ? ` files=${files.join(',')}` : ''} ctx=${ctx.contextId}`;
      const size = Math.ceil(answer.length / 3);
      for (let i = 0; i < 3; i++) {
        bus.publish({
          kind: 'artifact-update',
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            parts: [{ kind: 'text', text: answer.slice(i * size, (i + 1) * size) }],
          },
          append: append(i),
          lastChunk: i === 2,
        });
        await sleep(5);
      }
      bus.publish(status(ctx, 'completed', true));
      bus.finished();
    },
    cancelTask: async () => Promise.resolve(),
  });

  const executors: Record<
    string,
    { streaming: boolean; card?: Pick<AgentCard, 'defaultInputModes' | 'skills'>; executor: AgentExecutor }
  > = {
    stream: { streaming: true, executor: streamed((i) => i > 0) },
    // Every chunk `append: true`, the first too (as some agents do): the gateway must start the artifact.
    appending: { streaming: true, executor: streamed(() => true) },
    input: {
      streaming: true,
      executor: {
        execute: async (ctx, bus) => {
          if (!ctx.task) {
            bus.publish(newTask(ctx));
            bus.publish(status(ctx, 'input-required', true, agentMessage(ctx, 'What is your name?')));
          } else {
            bus.publish(
              status(
                ctx,
                'completed',
                true,
                agentMessage(ctx, `Hello ${text(ctx.userMessage.parts)} (task ${ctx.taskId})`),
              ),
            );
          }
          bus.finished();
          await Promise.resolve();
        },
        cancelTask: async () => Promise.resolve(),
      },
    },
    failing: {
      streaming: true,
      executor: {
        execute: async (ctx, bus) => {
          bus.publish(newTask(ctx));
          bus.publish(status(ctx, 'failed', true, agentMessage(ctx, 'upstream exploded: quota exhausted')));
          bus.finished();
          await Promise.resolve();
        },
        cancelTask: async () => Promise.resolve(),
      },
    },
    slow: {
      streaming: true,
      executor: {
        execute: async (ctx, bus) => {
          bus.publish(newTask(ctx));
          bus.publish(status(ctx, 'working', false, agentMessage(ctx, 'working on it')));
          await new Promise<void>((resolve) => slowRuns.set(ctx.taskId, resolve));
          bus.publish(status(ctx, 'canceled', true));
          bus.finished();
        },
        cancelTask: async (taskId) => {
          canceled.push(taskId);
          slowRuns.get(taskId)?.();
          await Promise.resolve();
        },
      },
    },
    blocking: {
      streaming: false,
      card: {
        defaultInputModes: ['text/plain'],
        skills: [{ id: 'direct', name: 'Direct answer', description: 'Answers at once', tags: ['direct'] }],
      },
      executor: {
        execute: async (ctx, bus) => {
          bus.publish(directMessage(ctx, `direct answer to: ${text(ctx.userMessage.parts)}`));
          bus.finished();
          await Promise.resolve();
        },
        cancelTask: async () => Promise.resolve(),
      },
    },
    secured: {
      streaming: true,
      executor: {
        execute: async (ctx, bus) => {
          bus.publish(directMessage(ctx, 'secret handshake ok'));
          bus.finished();
          await Promise.resolve();
        },
        cancelTask: async () => Promise.resolve(),
      },
    },
  };

  for (const [name, { streaming, card: own, executor }] of Object.entries(executors)) {
    const card = (): AgentCard => ({
      name: `upstream-${name}`,
      description: `test upstream agent ${name}`,
      url: `${base}/agents/${name}`,
      protocolVersion: '0.3.0',
      version: '1.0.0',
      capabilities: { streaming, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      ...own,
    });
    const recording: AgentExecutor = {
      execute: (ctx: RequestContext, bus: ExecutionEventBus) => executor.execute(ctx, bus),
      cancelTask: (taskId: string, bus: ExecutionEventBus) => executor.cancelTask(taskId, bus),
    };
    const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), recording);
    const record: express.RequestHandler = (req, res, next) => {
      const body = req.body as { params?: { message?: Message } } | undefined;
      if (name === 'secured' && req.headers.authorization !== 'Bearer upstream-token' && req.method === 'POST') {
        res.status(401).json({ error: 'unauthorized' });
        return;
      }
      if (body?.params?.message)
        received.push({
          agent: name,
          message: body.params.message,
          authorization: req.headers.authorization,
          apiKey: typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined,
        });
      next();
    };
    new A2AExpressApp(handler).setupRoutes(app, `/agents/${name}`, [express.json({ limit: '5mb' }), record]);
  }
  // JSON that is no agent card (for the check made when a version is created).
  app.get('/not-a-card.json', (_req, res) => res.json({ hello: 'world' }));
  app.get('/redirect-to-private', (_req, res) =>
    res.redirect(302, `${base}/agents/stream/.well-known/agent-card.json`),
  );

  return {
    base,
    port,
    received,
    canceled,
    cardFetches,
    requests,
    url: (agent) => `${base}/agents/${agent}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of slowRuns.values()) r();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
