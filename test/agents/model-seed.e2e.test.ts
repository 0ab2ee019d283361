import { startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { rpc, textMessage } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../management/helpers';
import { ScriptedProvider } from './scripted-provider';

/** `npm start` with OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL: a model agent on that provider is seeded. */
describe('seeded model agent (embedded, OPENAI_* configured)', () => {
  let provider: ScriptedProvider;
  let system: System;

  beforeAll(async () => {
    provider = await new ScriptedProvider().start();
    system = await startSystem({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        // `localhost`: a private host the embedded mode allows because the operator configured it.
        OPENAI_BASE_URL: `${provider.url.replace('127.0.0.1', 'localhost')}/v1`,
        OPENAI_API_KEY: 'sk-seeded-key-1234',
        OPENAI_MODEL: 'local-llm',
      },
      log: silentLogger(),
    });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
    await provider?.close();
  }, 60_000);

  it('seeds demo-model on the provider: its card, an answer, the key from the secret', async () => {
    expect(system.tasks.seed!.modelAgentId).toBe('demo-model');
    const card = await http(system.baseUrl, 'GET', '/agents/demo-model/.well-known/agent-card.json');
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({ name: 'Model Agent (local-llm)', capabilities: { streaming: true } });
    const r = await rpc(
      `${system.baseUrl}/agents/demo-model/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: textMessage('hi there'), configuration: { blocking: true } },
      },
      { key: system.tasks.seed!.credentials!.a2aKey },
    );
    expect(r.body.result.status.state).toBe('completed');
    expect(r.body.result.status.message.parts[0].text).toBe('echo: hi there');
    expect(provider.requests.at(-1)).toMatchObject({
      authorization: 'Bearer sk-seeded-key-1234',
      body: { model: 'local-llm' },
    });
    const secrets = await http(system.baseUrl, 'GET', '/api/v1/secrets', {
      token: system.tasks.seed!.credentials!.adminToken,
    });
    expect(secrets.body.secrets.map((s: { name: string }) => s.name)).toEqual(['seed-model-api-key']);
    expect(secrets.text).not.toContain('sk-seeded-key-1234');
  });
});
