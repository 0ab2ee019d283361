import { describe, expect, it } from 'vitest';
import { readUpstreamCard } from '../../src/domain/upstream-card';

const card = {
  name: 'up',
  description: '  What the upstream says it does. ',
  url: 'https://agent.example.com/a2a',
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [{ id: 's', name: 'Skill', tags: ['t'] }],
};

const answering =
  (body: unknown, init: ResponseInit = {}, seen: string[] = []): typeof fetch =>
  async (input) => {
    seen.push(String(input));
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), init);
  };

describe('readUpstreamCard', () => {
  it('reads the card at the base URL and keeps its claims', async () => {
    const seen: string[] = [];
    expect(await readUpstreamCard('https://agent.example.com/x/', answering(card, {}, seen))).toEqual({
      description: 'What the upstream says it does.',
      streaming: false,
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [{ id: 's', name: 'Skill', description: 'Skill', tags: ['t'], examples: [] }],
    });
    expect(seen).toEqual(['https://agent.example.com/x/.well-known/agent-card.json']);
  });

  it('refuses what it cannot use, with the reason', async () => {
    const url = 'https://agent.example.com/card.json';
    await expect(readUpstreamCard(url, answering('nope', { status: 404 }))).rejects.toThrow(`${url} answered 404`);
    await expect(readUpstreamCard(url, answering('{'))).rejects.toThrow('is not JSON');
    await expect(readUpstreamCard(url, answering({ ...card, defaultInputModes: [] }))).rejects.toThrow(
      'is not an agent card: defaultInputModes must be a non-empty list of media types',
    );
    await expect(readUpstreamCard(url, answering({ ...card, capabilities: undefined }))).rejects.toThrow(
      'capabilities must be an object',
    );
    await expect(readUpstreamCard(url, answering('x'.repeat(2000)), { maxBytes: 1000 })).rejects.toThrow(
      'is larger than 1000 bytes',
    );
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    await expect(readUpstreamCard(url, hanging, { timeoutMs: 50 })).rejects.toThrow('did not answer within 50 ms');
    const refused: typeof fetch = () =>
      Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.1:443') }));
    await expect(readUpstreamCard(url, refused)).rejects.toThrow(`${url}: connect ECONNREFUSED`);
  });
});
