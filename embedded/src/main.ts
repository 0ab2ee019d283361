import { telemetry } from './instrument';
import { join } from 'node:path';
import { createLogger } from '@a2a-inbound/logger';
import { type RunningProcess, runMain } from '@a2a-inbound/runtime';
import { loadMetricsConfig, observeConsumerLag, startMetrics } from '@a2a-inbound/telemetry';
import { loadEmbeddedConfig } from './config';
import { openEmbeddedEngines } from './open-engines';
import { startSystem } from './system';

/**
 * `npm start`: the five services in one process on PORT (default 8080). Durable by default: everything with
 * state in one LMDB database under DATA_DIR (default `.data/embedded` in the project folder); STORE=memory
 * keeps it in memory only.
 */
async function main(): Promise<RunningProcess> {
  const log = createLogger({ service: 'embedded', level: process.env.LOG_LEVEL ?? 'info' });
  // The bundle is embedded/dist/main.js: the project folder is two levels up.
  const config = loadEmbeddedConfig(process.env, join(__dirname, '..', '..'));
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-embedded');
  const { engines, bus, dataDir, env: dataEnv } = await openEmbeddedEngines(config, log, process.env);
  // The bus's consumer lag is a metric in this mode too (what it accepted and has not handled yet).
  observeConsumerLag(async () => bus.consumerLag(), log);
  const env: Record<string, string | undefined> = {
    // There is no other runner to hand a run to, so in-flight runs get a short grace on SIGTERM (the
    // distributed default is 10 s).
    RUNNER_SHUTDOWN_GRACE_MS: '2000',
    ...process.env,
    ...dataEnv,
    HOST: config.host,
  };
  const system = await startSystem({ env, engines, log, soleOwner: Boolean(dataDir) });
  // The banner shows the credentials the seed just wrote: only once they are durable (ADR 0069).
  await engines.commits?.committed();
  const base = system.baseUrl;
  const local = base.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1');
  const seed = system.tasks.seed;
  const lines = [
    '',
    dataDir
      ? `a2a-inbound is running (embedded mode, data in ${dataDir.path})`
      : 'a2a-inbound is running (embedded mode, in memory: nothing is kept when it stops)',
    `  listening on:   ${base}${local === base ? '' : ` (every interface; this machine: ${local})`}`,
    `  base URL:       ${local}`,
    `  health:         ${local}/healthz`,
    `  management API: ${local}/api/v1 (Authorization: Bearer <user token>; see docs/openapi/management.yaml)`,
    `  web console:    ${local}/console/ (sign in with a user token: the admin token)`,
  ];
  if (seed) {
    lines.push(
      `  deployment id:  ${seed.deploymentId}`,
      `  agent catalog:  ${local}/deployments/${seed.deploymentId}/.well-known/agent-catalog.json`,
      '  agent cards (demo agents):',
    );
    for (const id of seed.agentIds.filter((a) => a !== 'demo-task-agent'))
      lines.push(`    ${id.padEnd(18)} ${local}/agents/${id}/.well-known/agent-card.json`);
    lines.push('  demo Task Agent: demo-task-agent (A2A is not available for Task Agents)');
    if (seed.modelAgentId)
      lines.push(`  model agent (OPENAI_BASE_URL): ${local}/agents/${seed.modelAgentId}/.well-known/agent-card.json`);
    if (seed.credentials) {
      lines.push(
        '  demo credentials (shown once, now; they are stored only as hashes):',
        `    a2a key:        ${seed.credentials.a2aKey}`,
        `    invoke key:     ${seed.credentials.invokeKey}`,
        `    admin token:    ${seed.credentials.adminToken}`,
        `    operator token: ${seed.credentials.operatorToken}`,
        '  try:',
        `    curl -s ${local}/agents/demo-echo/a2a -H "Authorization: Bearer ${seed.credentials.a2aKey}" -H 'Content-Type: application/json' \\`,
        `      -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"hello"}]}}}'`,
      );
      dataDir?.recordCredentialsShown(new Date());
    } else {
      const at = dataDir?.credentialsShownAt();
      lines.push(
        `  credentials:    kept from an earlier start (printed once by the first start${at ? `, ${at}` : ''}; stored only as hashes)`,
        '    mint more:     npm run admin -- token --role admin   (or --role operator|developer; a key: npm run admin -- key --scope a2a)',
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
      async () => dataDir?.close(),
      () => metricsServer.close(),
      () => telemetry.shutdown(),
    ],
    // Printed once the signal handlers are in place: a client that reacts to the banner can stop us cleanly.
    onReady: () => void process.stdout.write(`${lines.join('\n')}\n\n`),
  };
}

void runMain('a2a-inbound', main);
