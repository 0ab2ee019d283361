// The README's "define one yourself" block, run as written with bash against the embedded mode: only the two
// https hosts (the model provider and the tool's API) become a local scripted provider, and the first line gets
// the base URL, admin token and a2a key that npm start would have printed, and the secret the reader's own provider
// key (issue 22).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { ScriptedProvider } from '../agents/scripted-provider';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The sh block after "Or define one yourself". */
function recipe(): string {
  const at = README.indexOf('Or define one yourself');
  const start = README.indexOf('```sh\n', at) + '```sh\n'.length;
  return README.slice(start, README.indexOf('\n```', start));
}

describe("README: the model agent recipe ('define one yourself')", () => {
  let system: System;
  let provider: ScriptedProvider;
  beforeAll(async () => {
    provider = await new ScriptedProvider().start();
    system = await startSystem({
      // The local provider and tool server are on loopback: on the operator allow-list.
      env: { PORT: '0', HOST: '127.0.0.1', EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
      engines: inMemoryEngines(),
      log: createLogger({ service: 'test', level: 'silent' }),
    });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
    await provider?.close();
  });

  it('creates the secret, the agent, its version, promotes it, adds it with A2A on, and the agent answers with its tool', async () => {
    const creds = system.tasks.seed!.credentials!;
    let script = recipe();
    const first = /^BASE=http:\/\/127\.0\.0\.1:8080; ADMIN=usr_…; KEY=a2a_…/m;
    expect(script).toMatch(first);
    script = script
      .replace(first, `BASE=${system.baseUrl}; ADMIN=${creds.adminToken}; KEY=${creds.a2aKey}`)
      .replaceAll('https://api.openai.com/v1', `${provider.url}/v1`)
      .replaceAll('https://api.example.com', `${provider.url}/tools`)
      .replace('"sk-…"', '"sk-local-provider-key"'); // the reader's own provider key goes there
    expect(script).not.toMatch(/\$\{?(?!BASE|ADMIN|KEY|AUTH|JSON|AGENT)[A-Z_]+/); // nothing left undefined
    // Asynchronously: the server answering curl runs in this process.
    const run = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60_000 });
    const answer = JSON.parse(run.stdout.slice(run.stdout.lastIndexOf('{"jsonrpc"'))) as {
      result: { status: { state: string }; artifacts: { parts: { text?: string }[] }[] };
    };
    expect(answer.result.status.state, JSON.stringify(answer.result.status)).toBe('completed');
    expect(answer.result.artifacts.flatMap((a) => a.parts.map((p) => p.text ?? '')).join('')).toContain('"tempC":21');
    expect(provider.toolCalls).toEqual([expect.objectContaining({ path: '/tools/weather/Oslo', method: 'GET' })]);
  });
});
