import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../src/egress/signer';

describe('Authentication rule 9: X-A2A-Signature', () => {
  it('is the hex HMAC-SHA256 of the raw body keyed with the config token', () => {
    const body = '{"kind":"task","id":"t1"}';
    expect(signBody(body, 'tok')).toBe(createHmac('sha256', 'tok').update(body).digest('hex'));
    expect(signBody(body, 'tok')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verifies in constant time and refuses another body, another token, or a malformed header', () => {
    const body = '{"a":1}';
    const sig = signBody(body, 'k');
    expect(verifySignature(body, 'k', sig)).toBe(true);
    expect(verifySignature('{"a":2}', 'k', sig)).toBe(false);
    expect(verifySignature(body, 'other', sig)).toBe(false);
    expect(verifySignature(body, 'k', 'not-hex')).toBe(false);
    expect(verifySignature(body, 'k', sig.slice(0, 10))).toBe(false);
  });
});
