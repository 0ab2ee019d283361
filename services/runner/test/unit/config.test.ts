import { describe, expect, it } from 'vitest';
import { ConfigError } from '@a2a-inbound/config';
import { loadRunnerConfig } from '../../src/config';

describe('loadRunnerConfig', () => {
  it('reports every problem together in one ConfigError', () => {
    let error: unknown;
    try {
      loadRunnerConfig({ RUNNER_GRPC_PORT: '-1', RUNNER_HEARTBEAT_MS: '5', RUNNER_SHUTDOWN_GRACE_MS: 'ten' }, 'r1');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(3);
    for (const name of ['RUNNER_GRPC_PORT', 'RUNNER_HEARTBEAT_MS', 'RUNNER_SHUTDOWN_GRACE_MS'])
      expect(problems.join('\n')).toContain(name);
  });

  it('defaults when nothing is set', () => {
    expect(loadRunnerConfig({}, 'runner-x')).toEqual({
      instanceId: 'runner-x',
      grpcHost: '127.0.0.1',
      grpcPort: 50052,
      grpcTls: undefined,
      grpcHealthPort: undefined,
      heartbeatMs: 3_000,
      leaseMs: 9_000,
      shutdownGraceMs: 10_000,
      maxConcurrentRuns: 256,
      maxRunsPerTenant: 64,
      maxQueuedRuns: 4_096,
      egressAllowList: { hosts: [], cidrs: [] },
      secretBox: undefined,
      warnings: [],
    });
  });

  it('reads the egress allow-list and refuses bad entries', () => {
    const c = loadRunnerConfig(
      { EGRESS_ALLOW_HOSTS: 'agents.internal, *.svc.cluster.local', EGRESS_ALLOW_CIDRS: '10.0.0.0/8,fd00::/8' },
      'r1',
    );
    expect(c.egressAllowList).toEqual({
      hosts: ['agents.internal', '*.svc.cluster.local'],
      cidrs: ['10.0.0.0/8', 'fd00::/8'],
    });
    expect(() => loadRunnerConfig({ EGRESS_ALLOW_CIDRS: '0.0.0.0/0', EGRESS_ALLOW_HOSTS: 'bad host' }, 'r1')).toThrow(
      /EGRESS_ALLOW_HOSTS: "bad host"[\s\S]*EGRESS_ALLOW_CIDRS: "0\.0\.0\.0\/0" allows every address/,
    );
  });

  it('refuses a run lease shorter than two heartbeats (a live run would look lost between renewals)', () => {
    expect(() => loadRunnerConfig({ RUNNER_HEARTBEAT_MS: '5000', RUNNER_LEASE_MS: '8000' }, 'r1')).toThrow(
      /RUNNER_LEASE_MS must be at least twice RUNNER_HEARTBEAT_MS/,
    );
  });

  it('SECRETS_KEY opens secrets (previous keys too); a bad key is refused', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    const old = Buffer.alloc(32, 2).toString('base64');
    const c = loadRunnerConfig({ SECRETS_KEY: key, SECRETS_KEY_PREVIOUS: old }, 'r');
    const sealedWithOld = loadRunnerConfig({ SECRETS_KEY: old }, 'r').secretBox!.seal('v', 'a');
    expect(c.secretBox!.open(sealedWithOld, 'a')).toBe('v');
    expect(() => loadRunnerConfig({ SECRETS_KEY: 'short' }, 'r')).toThrow(/SECRETS_KEY must be 32 bytes/);
  });
});
