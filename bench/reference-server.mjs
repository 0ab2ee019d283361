// The reference of the A2A benchmarks: the official `@a2a-js/sdk` server side (DefaultRequestHandler,
// A2AExpressApp, InMemoryTaskStore) with an echo agent that answers as ours does: a task in `working`,
// the echoed text as an artifact, then `completed`. No authentication, rate limit, idempotency, credits
// or durable storage: what the SDK gives out of the box.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';

const agentCard = {
  name: 'reference echo',
  description: 'Echoes the text it receives (benchmark reference).',
  protocolVersion: '0.3.0',
  version: '1.0.0',
  url: 'http://127.0.0.1/',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'echo', description: 'echo', tags: ['echo'] }],
};

const textOf = (message) =>
  message.parts
    .filter((p) => p.kind === 'text')
    .map((p) => p.text)
    .join('');

const echoExecutor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage, task } = ctx;
    if (!task) {
      bus.publish({
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'working', timestamp: new Date().toISOString() },
        history: [userMessage],
        artifacts: [],
      });
    }
    bus.publish({
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: {
        artifactId: `${taskId}-agent_response`,
        name: 'agent_response',
        parts: [{ kind: 'text', text: textOf(userMessage) }],
      },
      append: false,
      lastChunk: true,
    });
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state: 'completed', timestamp: new Date().toISOString() },
      final: true,
    });
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: randomUUID(),
      status: { state: 'canceled', timestamp: new Date().toISOString() },
      final: true,
    });
    bus.finished();
  },
};

const handler = new DefaultRequestHandler(agentCard, new InMemoryTaskStore(), echoExecutor);
const app = new A2AExpressApp(handler).setupRoutes(express(), '');
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
