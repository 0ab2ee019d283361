import { telemetry } from './instrument';
import { createLogger } from '@a2a-inbound/logger';
import { type RunningProcess, runMain } from '@a2a-inbound/runtime';
import { InMemoryBus } from '@a2a-inbound/ports';
import { loadMetricsConfig, observeConsumerLag, startMetrics } from '@a2a-inbound/telemetry';
import { inMemoryEngines, startSystem } from './system';

/** `npm start`: the five services in one process with in-memory adapters, on PORT (default 8080). */
async function main(): Promise<RunningProcess> {
  const log = createLogger({ service: 'embedded', level: process.env.LOG_LEVEL ?? 'info' });
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-embedded');
  // In-memory engines: nothing survives the process and there is no other runner to hand a run to, so
  // in-flight runs get a short grace on SIGTERM (the distributed default is 10 s).
  // The bus's consumer lag is a metric in this mode too (what it accepted and has not handled yet).
  const bus = new InMemoryBus();
  observeConsumerLag(async () => bus.consumerLag(), log);
  const engines = inMemoryEngines(undefined, bus);
  const system = await startSystem({
    env: { HOST: '0.0.0.0', RUNNER_SHUTDOWN_GRACE_MS: '2000', ...process.env },
    engines,
    log,
  });
  const base = system.baseUrl.replace('0.0.0.0', '127.0.0.1');
  const seed = system.tasks.seed;
  const lines = [
    '',
    `a2a-inbound is running (embedded mode, in-memory adapters)`,
    `  base URL:       ${base}`,
    `  health:         ${base}/healthz`,
    `  management API: ${base}/api/v1 (Authorization: Bearer <user token>; see docs/openapi/management.yaml)`,
    `  web console:    ${base}/console/ (sign in with a user token: the admin token below)`,
  ];
  if (seed) {
    lines.push(
      `  deployment id:  ${seed.deploymentId}`,
      `  agent catalog:  ${base}/deployments/${seed.deploymentId}/.well-known/agent-catalog.json`,
      '  agent cards (demo agents):',
    );
    for (const id of seed.agentIds.filter((a) => a !== 'demo-task-agent'))
      lines.push(`    ${id.padEnd(18)} ${base}/agents/${id}/.well-known/agent-card.json`);
    lines.push('  demo Task Agent: demo-task-agent (A2A is not available for Task Agents)');
    if (seed.modelAgentId)
      lines.push(`  model agent (OPENAI_BASE_URL): ${base}/agents/${seed.modelAgentId}/.well-known/agent-card.json`);
    if (seed.credentials) {
      lines.push(
        '  demo credentials (shown once, now; they are stored only as hashes):',
        `    a2a key:        ${seed.credentials.a2aKey}`,
        `    invoke key:     ${seed.credentials.invokeKey}`,
        `    admin token:    ${seed.credentials.adminToken}`,
        `    operator token: ${seed.credentials.operatorToken}`,
        '  try:',
        `    curl -s ${base}/agents/demo-echo/a2a -H "Authorization: Bearer ${seed.credentials.a2aKey}" -H 'Content-Type: application/json' \\`,
        `      -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"hello"}]}}}'`,
      );
    }
  }
  return {
    log,
    shutdown: [
      () => system.close(),
      async () => {
        for (const c of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
          await c.close();
      },
      () => metricsServer.close(),
      () => telemetry.shutdown(),
    ],
    // Printed once the signal handlers are in place: a client that reacts to the banner can stop us cleanly.
    onReady: () => void process.stdout.write(`${lines.join('\n')}\n\n`),
  };
}

void runMain('a2a-inbound', main);
