import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSystem } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { dnsResolver, isPublicAddress, type Resolver } from '@a2a-inbound/runtime';
import { manage } from '@a2a-inbound/testing';
import { selfSignedCert } from '../../services/webhooks/test/support/receiver';
import { startAuthProxy } from './auth-proxy';
import { RELAY_HOST, startPushRelay } from './push-relay';

/**
 * What both official A2A TCK runs share (`npm run tck`, 1.0; `npm run tck:0.3`): the embedded system behind the
 * auth proxy with a `demo:tck` agent, pytest run from the TCK's tree, and its JUnit report read back.
 */

/**
 * The TCK registers push receivers on `https://example.com/...`. Where DNS answers, that name resolves to a
 * public address and passes Webhook rule 1; a machine without DNS (CI sandboxes) would refuse it as "does not
 * resolve" and fail every push case for want of a resolver, so the harness answers for that one name as DNS
 * would (example.com's public address) and asks DNS for every other name. Deliveries still use real DNS.
 */
const tckResolver: Resolver = async (host) => {
  const name = host.toLowerCase();
  if (name === 'example.com') return Promise.resolve(['93.184.215.14']);
  // The push relay's public name (push-relay.ts), as its DNS would answer; deliveries reach it on loopback.
  if (name === RELAY_HOST) return Promise.resolve(['93.184.216.34']);
  return dnsResolver(host);
};
const deliveryResolver: Resolver = async (host) =>
  host.toLowerCase() === RELAY_HOST ? Promise.resolve(['127.0.0.1']) : dnsResolver(host);

export interface Case {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped' | 'xfailed';
  message: string;
}

/** The JUnit report pytest writes: each test case and how it ended (xfail is a SHOULD not met). */
export function readJunit(xml: string): Case[] {
  const out: Case[] = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = m[1]!;
    const body = m[3] ?? '';
    const attr = (n: string): string => new RegExp(`\\b${n}="([^"]*)"`).exec(attrs)?.[1] ?? '';
    const name = `${attr('classname')}::${attr('name')}`;
    const failure = /<(failure|error)\b[^>]*message="([^"]*)"/.exec(body);
    const skipped = /<skipped\b[^>]*type="([^"]*)"[^>]*message="([^"]*)"|<skipped\b[^>]*message="([^"]*)"/.exec(body);
    if (failure) out.push({ name, outcome: 'failed', message: failure[2]! });
    else if (skipped)
      out.push({
        name,
        outcome: /xfail/i.test(skipped[1] ?? '') ? 'xfailed' : 'skipped',
        message: skipped[2] ?? skipped[3] ?? '',
      });
    else out.push({ name, outcome: 'passed', message: '' });
  }
  return out;
}

export interface TckRun {
  cases: Case[];
  /** The tail of pytest's output (for a run that reported nothing). */
  output: string;
  reports: string;
  count(o: Case['outcome']): number;
}

/**
 * Starts the embedded system behind the auth proxy (the TCK sends no credentials) and the push relay, adds the
 * `demo:tck` agent (push enabled), and runs pytest in `tckDir` once per session `sessions` gives for the agent's
 * proxied base URL (`http://127.0.0.1:{port}/agents/{id}`) and the report folder (each session its own JUnit
 * report, all read back as one run). A session has fresh TCK ids (`tck_id`: one `_SESSION` per pytest process).
 */
export async function runTck(
  tckDir: string,
  python: string,
  sessions: (agentBase: string, reports: string) => string[][],
): Promise<TckRun> {
  const tls = await selfSignedCert();
  const relay = await startPushRelay(tls);
  const proxy = await startAuthProxy((url) => relay.relayUrl(url));
  const system = await startSystem({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${proxy.httpPort}`,
      A2A_GRPC_PUBLIC_ADDR: `127.0.0.1:${proxy.grpcPort}`,
    },
    log: silentLogger(),
    resolver: tckResolver,
    // Deliveries to the relay (loopback, the test certificate); every other receiver as in production.
    webhookEgress: {
      isAllowed: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
      resolve: deliveryResolver,
      ca: tls.cert,
    },
  });
  try {
    const seed = system.tasks.seed!;
    const sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: seed.subscriptionId };
    const agent = await manage(sut, 'admin', 'agents.create', {
      name: 'TCK Agent',
      description: 'Demo agent for the official A2A TCK: behaves as its scenarios ask, by message id prefix.',
      type: 'AI Agent',
      skills: [{ id: 'tck', name: 'TCK scenarios', description: 'A2A TCK scenarios.', tags: ['demo', 'tck'] }],
    });
    // The resubscribe scenario runs for twice the TCK's stream time-out (10 s).
    const runtimeConfig = { longRunMs: 20_000 };
    await manage(sut, 'admin', 'agents.publishVersion', {
      agentId: agent.id,
      version: '1.0.0',
      runtime: 'demo:tck',
      runtimeConfig,
    });
    await manage(sut, 'admin', 'agents.promote', { agentId: agent.id, version: '1.0.0' });
    await manage(sut, 'admin', 'deployments.addAgent', {
      deploymentId: seed.deploymentId,
      agentId: agent.id,
      a2aEnabled: true,
    });
    await manage(sut, 'operator', 'settings.update', {
      agentId: agent.id,
      settings: { pushNotificationsEnabled: true },
    });
    proxy.target(
      seed.credentials!.a2aKey,
      String(agent.id),
      { host: '127.0.0.1', port: system.gateway.port },
      { host: '127.0.0.1', port: system.gateway.a2aGrpcPort! },
    );

    const reports = mkdtempSync(join(tmpdir(), 'a2a-tck-'));
    const agentBase = `http://127.0.0.1:${proxy.httpPort}/agents/${agent.id}`;
    let output = '';
    const cases: Case[] = [];
    for (const [i, args] of sessions(agentBase, reports).entries()) {
      const junit = join(reports, `junit-${i}.xml`);
      output += await new Promise<string>((resolve) => {
        const child = spawn(python, ['-m', 'pytest', ...args, `--junitxml=${junit}`], {
          cwd: tckDir,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.stderr.on('data', (d: Buffer) => (text += d.toString()));
        child.on('close', () => resolve(text));
      });
      if (existsSync(junit)) cases.push(...readJunit(readFileSync(junit, 'utf8')));
    }
    const count = (o: Case['outcome']): number => cases.filter((c) => c.outcome === o).length;
    process.stdout.write(
      `A2A TCK: ${count('passed')} passed, ${count('failed')} failed, ${count('xfailed')} xfailed (SHOULD), ` +
        `${count('skipped')} skipped; reports in ${reports}\n`,
    );
    return { cases, output: output.slice(-4000), reports, count };
  } finally {
    await system.close();
    await proxy.close();
    await relay.close();
  }
}

/** The failures no entry of `known` names (each entry: a TCK bug or our documented choice). */
export function unexpectedFailures(run: TckRun, known: readonly { test: RegExp; why: string }[]): string[] {
  const failed = run.cases.filter((c) => c.outcome === 'failed');
  const expected = failed.filter((c) => known.some((k) => k.test.test(c.name)));
  process.stdout.write(`known divergences (docs/conformance-notes.md): ${expected.length}\n`);
  return failed.filter((c) => !expected.includes(c)).map((c) => `${c.name}: ${c.message.slice(0, 300)}`);
}
