import { EnvReader, type Env } from '@a2a-inbound/config';

export interface WebhooksConfig {
  grpcHost: string;
  grpcPort: number;
}

export function loadWebhooksConfig(env: Env): WebhooksConfig {
  const r = new EnvReader(env);
  const c = {
    grpcHost: r.string('WEBHOOKS_GRPC_HOST', '127.0.0.1'),
    grpcPort: r.int('WEBHOOKS_GRPC_PORT', 50053, { min: 0, max: 65535 }),
  };
  r.done();
  return c;
}
