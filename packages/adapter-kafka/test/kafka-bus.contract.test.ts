import { describe } from 'vitest';
import { describeBusContract } from '@a2a-inbound/ports/testing';
import { KafkaBus } from '../src/index';

// Real-engine run: CI sets KAFKA_BROKERS (scripts/engines/up.sh prints it). The suite makes its topic
// names unique per run; group joins and rebalances need a longer timeout than the in-memory bus.
const brokers = process.env.KAFKA_BROKERS ?? '';

describe.runIf(Boolean(brokers))('kafka bus (KAFKA_BROKERS)', () => {
  describeBusContract(
    'kafka',
    () => KafkaBus.connect({ brokers, clientId: 'contract-test', retryDelayMs: 50, maxRetryDelayMs: 200 }),
    {
      timeoutMs: 30_000,
    },
  );
});
