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

describe('production refuses plaintext engine links (issue 24, ADR 0035)', () => {
  const remote = {
    NODE_ENV: 'production',
    KAFKA_BROKERS: 'kafka-0.kafka:9092,kafka-1.kafka:9092',
    REDIS_URL: 'redis://redis.internal:6379',
    MONGO_URL: 'mongodb://app:pw@mongo-0.internal:27017,mongo-1.internal:27017/?replicaSet=rs0',
  };
  const encrypted = {
    ...remote,
    KAFKA_TLS: 'true',
    REDIS_URL: 'rediss://app:pw@redis.internal:6380',
    MONGO_URL: 'mongodb://app:pw@mongo-0.internal:27017/?replicaSet=rs0&tls=true',
  };

  it('names the setting of each plaintext link, and never a credential of its URL', () => {
    const found = problems(remote);
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^KAFKA_TLS=true \(or KAFKA_TLS_CA_FILE\) is required with NODE_ENV=production/);
    expect(found[0]).toContain('kafka-0.kafka, kafka-1.kafka');
    expect(found[1]).toMatch(/^REDIS_URL must be rediss:\/\/ \(TLS\) with NODE_ENV=production/);
    expect(found[2]).toMatch(/^MONGO_URL must turn TLS on .* with NODE_ENV=production/);
    expect(found[2]).toContain('mongo-0.internal, mongo-1.internal');
    for (const p of found) {
      expect(p).toMatch(/ALLOW_PLAINTEXT_LINKS=(kafka|redis|mongo) accepts it/);
      expect(p).not.toContain('pw');
    }
  });

  it('accepts every engine on TLS (mongodb+srv:// is TLS unless it says tls=false)', () => {
    expect(problems(encrypted)).toEqual([]);
    expect(load(encrypted).warnings).toEqual([]);
    expect(problems({ ...encrypted, MONGO_URL: 'mongodb+srv://app:pw@cluster0.example.net/db' })).toEqual([]);
    expect(problems({ ...encrypted, MONGO_URL: 'mongodb+srv://cluster0.example.net/?tls=false' })).toHaveLength(1);
    expect(problems({ ...encrypted, MONGO_URL: 'mongodb://mongo.internal/?ssl=true' })).toEqual([]);
    expect(problems({ ...encrypted, KAFKA_TLS: '', KAFKA_TLS_CA_FILE: '/etc/kafka/ca.pem' })).toEqual([]);
  });

  it('checks only outside production, loopback and the engines the service opens', () => {
    expect(problems({ ...remote, NODE_ENV: 'development' })).toEqual([]);
    // The defaults (127.0.0.1) and a local TLS sidecar never leave the machine.
    expect(problems({ NODE_ENV: 'production' })).toEqual([]);
    expect(problems({ ...remote, REDIS_URL: 'redis://localhost:6379', KAFKA_BROKERS: '[::1]:9092' })).toHaveLength(1);
    // The gateway opens Redis and GridFS: a plaintext Kafka address it never dials is not its concern.
    const gateway = (env: Record<string, string>) =>
      loadEnginesConfig(env, { engines: 'real', clientId: 'x', needs: ['cache', 'limiter', 'blobs'] });
    expect(() => gateway({ ...encrypted, KAFKA_TLS: '' })).not.toThrow();
    expect(() => gateway({ ...encrypted, REDIS_URL: remote.REDIS_URL })).toThrow(/REDIS_URL must be rediss/);
  });

  it('ALLOW_PLAINTEXT_LINKS accepts the links it names, each as a warning to log, and refuses unknown names', () => {
    const c = load({ ...remote, ALLOW_PLAINTEXT_LINKS: 'kafka,redis,mongo' });
    expect(c.warnings).toHaveLength(3);
    expect(c.warnings[0]).toMatch(/plaintext kafka .* allowed by ALLOW_PLAINTEXT_LINKS=kafka/);
    expect(problems({ ...remote, ALLOW_PLAINTEXT_LINKS: 'redis' })).toHaveLength(2);
    expect(problems({ ...encrypted, ALLOW_PLAINTEXT_LINKS: 'everything' })).toEqual([
      'ALLOW_PLAINTEXT_LINKS must list some of grpc, kafka, redis, mongo, got "everything"',
    ]);
  });
});
