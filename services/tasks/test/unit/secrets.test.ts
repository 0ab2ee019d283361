import { SecretBox } from '@a2a-inbound/agent-definitions';
import { InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import { describe, expect, it } from 'vitest';
import { Secrets } from '../../src/domain/secrets';

describe('Secrets (sealed at rest, names out)', () => {
  const box = SecretBox.fromBase64(Buffer.alloc(32, 3).toString('base64'));

  it('stores only the sealed value; lists names; sealedFor opens with the subscription and name', async () => {
    const store = new InMemoryDocumentStore();
    const secrets = await Secrets.open(store, box, systemClock);
    await secrets.put('sub-a', 'openai', 'sk-plain-value-1');
    await secrets.put('sub-a', 'openai', 'sk-plain-value-2'); // replace
    const raw = await (await store.collection<{ sealed: string }>({ name: 'secrets' })).get('sub-a:openai');
    expect(JSON.stringify(raw)).not.toContain('sk-plain-value');
    expect(await secrets.list('sub-a')).toEqual([
      { name: 'openai', createdAtMs: expect.any(Number), updatedAtMs: expect.any(Number) },
    ]);
    expect(await secrets.list('sub-b')).toEqual([]);
    const sealed = await secrets.sealedFor('sub-a', ['openai', 'missing']);
    expect(Object.keys(sealed)).toEqual(['openai']);
    expect(box.open(sealed.openai!, 'sub-a/openai')).toBe('sk-plain-value-2');
    expect(() => box.open(sealed.openai!, 'sub-b/openai')).toThrow();
    await secrets.delete('sub-a', 'openai');
    expect(await secrets.exists('sub-a', 'openai')).toBe(false);
  });

  it('refuses bad names, empty values, and creation without SECRETS_KEY', async () => {
    const secrets = await Secrets.open(new InMemoryDocumentStore(), box, systemClock);
    await expect(secrets.put('s', 'bad name', 'v')).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(secrets.put('s', 'ok', '')).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    const keyless = await Secrets.open(new InMemoryDocumentStore(), undefined, systemClock);
    await expect(keyless.put('s', 'ok', 'v')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('SECRETS_KEY'),
    });
  });
});
