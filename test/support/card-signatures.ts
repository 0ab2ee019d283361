import canonicalize from 'canonicalize';
import * as jose from 'jose';
import { verifyAgentCardSignature } from '@a2a-js/sdk-v1';
import { expect } from 'vitest';

// Verifiers of signed agent cards as clients write them, independent of the gateway's code (ADR 0034).

export type Signed = Record<string, unknown> & { signatures?: jose.FlattenedJWS[] };

/** A verifier as a client writes it: the key by `kid` from the JWKS at the protected header's `jku`. */
export async function verifyDocument(card: Signed): Promise<jose.JWSHeaderParameters> {
  const { signatures = [], ...unsigned } = card;
  expect(signatures.length).toBeGreaterThan(0);
  const payload = jose.base64url.encode(canonicalize(unsigned)!);
  let lastError: unknown;
  for (const s of signatures) {
    const { jku } = jose.decodeProtectedHeader(s);
    const jwks = jose.createRemoteJWKSet(new URL(String(jku)));
    try {
      return (await jose.flattenedVerify({ ...s, payload }, jwks)).protectedHeader!;
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/** The official SDK's verifier, the key fetched from the `jku` it is handed. */
export const sdkVerifier = verifyAgentCardSignature(async (kid, jku) => {
  const jwks = (await (await fetch(jku!)).json()) as jose.JSONWebKeySet;
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`no key ${kid} at ${jku}`);
  return (await jose.importJWK(jwk, 'ES256')) as jose.CryptoKey;
});
