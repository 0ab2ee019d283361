import { SecretBox } from '@a2a-inbound/agent-definitions';
import { InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import { describe, expect, it } from 'vitest';
import { runTasksCli } from '../../src/cli-run';
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

  it('a key rotation: reseal-secrets seals every value of the old key with the new one, then the old key can go', async () => {
    const oldKey = Buffer.alloc(32, 1).toString('base64');
    const newKey = Buffer.alloc(32, 2).toString('base64');
    const otherKey = Buffer.alloc(32, 9).toString('base64');
    const store = new (class extends InMemoryDocumentStore {
      override async close(): Promise<void> {} // the CLI closes its store; the test reads it afterwards
    })();
    const before = await Secrets.open(store, SecretBox.fromBase64(oldKey), systemClock);
    for (let i = 0; i < 5; i++) await before.put(`sub-${i % 2}`, `key-${i}`, `value-${i}`);
    await (await Secrets.open(store, SecretBox.fromBase64(otherKey), systemClock)).put('sub-x', 'lost', 'gone');
    // During the rotation (new key current, old key previous) a new value is sealed with the new key at once.
    const rotating = SecretBox.fromBase64(newKey, [oldKey]);
    await (await Secrets.open(store, rotating, systemClock)).put('sub-0', 'fresh', 'new-value');

    let out = '';
    let err = '';
    const io = { stdout: (t: string) => (out += t), stderr: (t: string) => (err += t) };
    const env = { SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: oldKey };
    expect(await runTasksCli(['reseal-secrets'], io, async () => store, env)).toBe(1); // one value opens with no key
    expect(err).toBe('');
    expect(out).toContain(
      `resealed 5 secret(s) with key ${rotating.keyId}; 1 already used it; 1 no configured key opens`,
    );
    expect(out).toContain('not opened: sub-x:lost');
    expect(out).not.toMatch(/value-|new-value|gone/);

    // The old key dropped: every value still opens with the new key alone.
    const after = SecretBox.fromBase64(newKey);
    const secrets = await Secrets.open(store, after, systemClock);
    for (let i = 0; i < 5; i++) {
      const sealed = (await secrets.sealedFor(`sub-${i % 2}`, [`key-${i}`]))[`key-${i}`]!;
      expect(after.isStale(sealed)).toBe(false);
      expect(after.open(sealed, `sub-${i % 2}/key-${i}`)).toBe(`value-${i}`);
    }
    expect(after.open((await secrets.sealedFor('sub-0', ['fresh'])).fresh!, 'sub-0/fresh')).toBe('new-value');
    // A second run has nothing left to do (the unopenable one stays as it was).
    out = '';
    expect(await runTasksCli(['reseal-secrets'], io, async () => store, env)).toBe(1);
    expect(out).toContain('resealed 0 secret(s)');
    expect(out).toContain('6 already used it');

    // Without a key, or with a malformed one, nothing is opened.
    err = '';
    let opened = false;
    const opener = async () => {
      opened = true;
      return store;
    };
    expect(await runTasksCli(['reseal-secrets'], io, opener, {})).toBe(2);
    expect(await runTasksCli(['reseal-secrets'], io, opener, { SECRETS_KEY: 'short' })).toBe(2);
    expect(opened).toBe(false);
    expect(err).toMatch(/needs SECRETS_KEY/);
    expect(err).toMatch(/32 bytes/);
  });
});
