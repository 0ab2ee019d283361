import { describe, expect, it } from 'vitest';
import { EgressPolicy } from '@a2a-inbound/runtime';
import { validateA2aUpstreamConfig, validateHttpAgentConfig } from '../../src';
import { agentCardUrl } from '../../src/runtimes/a2a-upstream';

describe('runtime configuration validators (plugged into the version-definition registry)', () => {
  it('accepts a minimal and a full a2a-upstream configuration', () => {
    expect(validateA2aUpstreamConfig({ url: 'https://agent.example.com' })).toEqual([]);
    expect(
      validateA2aUpstreamConfig({
        url: 'https://agent.example.com/.well-known/agent-card.json',
        tokenSecret: 't',
        authHeader: 'X-Api-Key',
        timeoutMs: 60_000,
        idleTimeoutMs: 10_000,
      }),
    ).toEqual([]);
  });

  it('names the field and the reason of every problem, and never echoes the secret', () => {
    const problems = validateA2aUpstreamConfig({
      tokenSecret: 'line\nbreak-secret',
      authHeader: 'Content-Length',
      timeoutMs: 10,
      idleTimeoutMs: 'soon',
      model: 'x',
    });
    expect(problems).toEqual([
      { path: 'runtimeConfig.model', reason: 'is not a known field' },
      { path: 'runtimeConfig.url', reason: 'is required (a URL)' },
      { path: 'runtimeConfig.tokenSecret', reason: 'must not contain line breaks' },
      { path: 'runtimeConfig.authHeader', reason: 'must not be Content-Length: it belongs to the HTTP exchange' },
      { path: 'runtimeConfig.timeoutMs', reason: 'must be an integer from 1000 to 3600000' },
      { path: 'runtimeConfig.idleTimeoutMs', reason: 'must be an integer from 1000 to 3600000' },
    ]);
    expect(JSON.stringify(problems)).not.toContain('break-secret');
    expect(validateA2aUpstreamConfig('nope')).toEqual([{ path: 'runtimeConfig', reason: 'must be a JSON object' }]);
  });

  it('refuses a private or plain-http upstream unless the operator allow-list covers it', () => {
    expect(validateA2aUpstreamConfig({ url: 'http://agent.example.com' })).toEqual([
      { path: 'runtimeConfig.url', reason: 'url must use https' },
    ]);
    expect(validateHttpAgentConfig({ url: 'http://10.0.0.5:8000/run' })[0]?.reason).toContain(
      'not on the operator allow-list',
    );
    const policy = new EgressPolicy({ hosts: [], cidrs: ['10.0.0.0/8'] });
    expect(validateHttpAgentConfig({ url: 'http://10.0.0.5:8000/run' }, policy)).toEqual([]);
    expect(validateHttpAgentConfig({ url: 'https://169.254.169.254/latest' }, policy)[0]?.path).toBe(
      'runtimeConfig.url',
    );
  });

  it('checks the http runtime caps', () => {
    expect(
      validateHttpAgentConfig({ url: 'https://a.example.com/run', maxResponseBytes: 100, historyMessages: -1 }),
    ).toEqual([
      { path: 'runtimeConfig.maxResponseBytes', reason: 'must be an integer from 1024 to 16777216' },
      { path: 'runtimeConfig.historyMessages', reason: 'must be an integer from 0 to 200' },
    ]);
    // streaming (the card's claim) is a known boolean field.
    expect(validateHttpAgentConfig({ url: 'https://a.example.com/run', streaming: true })).toEqual([]);
    expect(validateHttpAgentConfig({ url: 'https://a.example.com/run', streaming: 1 })).toEqual([
      { path: 'runtimeConfig.streaming', reason: 'must be true or false' },
    ]);
  });

  it('derives the card URL from a base URL, keeps a card URL', () => {
    expect(agentCardUrl('https://h.example.com/agents/x')).toBe(
      'https://h.example.com/agents/x/.well-known/agent-card.json',
    );
    expect(agentCardUrl('https://h.example.com/')).toBe('https://h.example.com/.well-known/agent-card.json');
    expect(agentCardUrl('https://h.example.com/card.json')).toBe('https://h.example.com/card.json');
  });
});
