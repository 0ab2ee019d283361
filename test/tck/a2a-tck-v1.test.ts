import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSystem } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { manage } from '@a2a-inbound/testing';
import { startAuthProxy } from './auth-proxy';

/**
 * The official A2A 1.0 TCK (a2aproject/a2a-tck, branch 1.0-dev) against the embedded system, on JSON-RPC,
 * HTTP+JSON and gRPC. Run by `npm run tck` (scripts/a2a-tck.sh installs the TCK and sets A2A_TCK_DIR and
 * A2A_TCK_PYTHON): the TCK comes from GitHub, which an offline CI cannot reach, so a plain `npm test` skips it.
 * The agent is `demo:tck`, the demo runtime that follows the TCK's scenario conventions (`tck-*` message ids).
 */
const tckDir = process.env.A2A_TCK_DIR;
const python = process.env.A2A_TCK_PYTHON;

interface Case {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped' | 'xfailed';
  message: string;
}

/** The JUnit report pytest writes: each test case and how it ended (xfail is a SHOULD not met). */
function readJunit(xml: string): Case[] {
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

/**
 * Failures of the pinned TCK that are its bugs or our documented choices, each named with the spec text in
 * docs/conformance-notes.md ("Official A2A 1.0 TCK"). Any other failure fails this test.
 */
const KNOWN: readonly { test: RegExp; why: string }[] = [
  { test: /TestAgentCardStructure::test_agent_card_validates_against_schema$/, why: 'one card for 0.3 and 1.0' },
  { test: /TestAgentCardLastModified::test_last_modified_present$/, why: 'a MAY reported as a failure' },
  { test: /TestMessageResponse::test_returns_message_with_text_part\[/, why: 'our agents answer with a Task' },
  {
    test: /(TestRestErrorStructure::test_error_uses_aip193_format|TestAIP193ErrorFormat::test_error_content_type|TestRestFormat::test_response_content_type)$/,
    why: 'spec 11.1: application/a2a+json',
  },
  { test: /test_must_requirement\[CORE-SEND-003-/, why: 'requirement without its expected error' },
  { test: /TestPushNotificationCrud::test_create_push_config\[/, why: 'token required; snake_case params' },
  { test: /test_version_not_supported_returns_unimplemented$/, why: 'spec 5.4: FAILED_PRECONDITION' },
  { test: /TestJsonRpcErrorCodeMappings::test_content_type_not_supported_error$/, why: 'body is not JSON' },
];

// Skipped unless scripts/a2a-tck.sh set A2A_TCK_DIR and A2A_TCK_PYTHON: the TCK is not on PyPI and comes from
// GitHub, which CI's machines cannot reach (`npm run tck` downloads it and runs this file).
describe.skipIf(!tckDir || !python)(
  'official A2A 1.0 TCK (npm run tck; skipped without A2A_TCK_DIR: the TCK comes from GitHub)',
  () => {
    it('passes on JSON-RPC, HTTP+JSON and gRPC but for the known divergences', { timeout: 20 * 60_000 }, async () => {
      const proxy = await startAuthProxy();
      const system = await startSystem({
        env: {
          PORT: '0',
          HOST: '127.0.0.1',
          PUBLIC_BASE_URL: `http://127.0.0.1:${proxy.httpPort}`,
          A2A_GRPC_PUBLIC_ADDR: `127.0.0.1:${proxy.grpcPort}`,
        },
        log: silentLogger(),
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
        const sutHost = `http://127.0.0.1:${proxy.httpPort}/agents/${agent.id}`;
        const args = [
          '-m',
          'pytest',
          'tests/compatibility/',
          `--sut-host=${sutHost}`,
          '--tb=line',
          '-q',
          '-p',
          'no:cacheprovider',
          `--compatibility-report=${join(reports, 'compatibility')}`,
          `--junitxml=${join(reports, 'junit.xml')}`,
        ];
        const output = await new Promise<string>((resolve) => {
          const child = spawn(python!, args, { cwd: tckDir, stdio: ['ignore', 'pipe', 'pipe'] });
          let text = '';
          child.stdout.on('data', (d: Buffer) => (text += d.toString()));
          child.stderr.on('data', (d: Buffer) => (text += d.toString()));
          child.on('close', () => resolve(text));
        });
        const cases = readJunit(readFileSync(join(reports, 'junit.xml'), 'utf8'));
        const count = (o: Case['outcome']): number => cases.filter((c) => c.outcome === o).length;
        process.stdout.write(
          `A2A TCK: ${count('passed')} passed, ${count('failed')} failed, ${count('xfailed')} xfailed (SHOULD), ` +
            `${count('skipped')} skipped; reports in ${reports}\n`,
        );
        expect(cases.length, output.slice(-4000)).toBeGreaterThan(0);
        const failed = cases.filter((c) => c.outcome === 'failed');
        const known = failed.filter((c) => KNOWN.some((k) => k.test.test(c.name)));
        process.stdout.write(`known divergences (docs/conformance-notes.md): ${known.length}\n`);
        expect(failed.filter((c) => !known.includes(c)).map((c) => `${c.name}: ${c.message.slice(0, 300)}`)).toEqual(
          [],
        );
        expect(count('passed')).toBeGreaterThan(150);
      } finally {
        await system.close();
        await proxy.close();
      }
    });
  },
);
