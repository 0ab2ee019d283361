import { describe, expect, it } from 'vitest';
import { ConfigError } from '@a2a-inbound/config';
import { loadEnginesConfig } from '../src/index';

const load = (env: Record<string, string>) => loadEnginesConfig(env, { engines: 'real', clientId: 'x' });
const problems = (env: Record<string, string>): string[] => {
  try {
    load(env);
    return [];
  } catch (err) {
    return err instanceof ConfigError ? [...err.problems] : ['not a ConfigError'];
  }
};

describe('engine TLS and credentials (issue 24)', () => {
  it('Kafka: plaintext and no SASL by default; TLS with KAFKA_TLS or a CA file; SCRAM credentials', () => {
    expect(load({})).toMatchObject({ kafkaTls: undefined, kafkaSasl: undefined });
    expect(load({ KAFKA_TLS: 'true' }).kafkaTls).toEqual({});
    expect(load({ KAFKA_TLS_CA_FILE: '/etc/kafka/ca.pem' }).kafkaTls).toEqual({ caFile: '/etc/kafka/ca.pem' });
    expect(
      load({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'pw' }).kafkaSasl,
    ).toEqual({ mechanism: 'scram-sha-512', username: 'svc', password: 'pw' });
  });

  it('refuses half a SASL configuration, an unknown mechanism, and a plain password without TLS', () => {
    expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-256' })).toEqual([
      'KAFKA_SASL_MECHANISM needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD',
    ]);
    expect(problems({ KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'pw' })).toEqual([
      'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM',
    ]);
    expect(
      problems({ KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'b' }),
    ).toHaveLength(1);
    const plain = { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'a', KAFKA_SASL_PASSWORD: 'b' };
    expect(problems(plain)).toEqual(['KAFKA_SASL_MECHANISM=plain sends the password in clear: set KAFKA_TLS=true too']);
    expect(problems({ ...plain, KAFKA_TLS: 'true' })).toEqual([]);
  });
});
