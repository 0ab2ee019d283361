import { describe } from 'vitest';
import { describeA2aEndToEnd } from '../e2e/suite';
import { engineUrlsSet, startDistributed } from './cluster';

// Distributed layout: every service its own process (two gateways, two runners), Kafka, MongoDB (FerretDB)
// and Redis. Needs the engines (KAFKA_BROKERS, MONGO_URL, REDIS_URL); `npm test` starts them.
describe.runIf(engineUrlsSet)('distributed layout', () => {
  describeA2aEndToEnd('distributed', async () => (await startDistributed()).sut);
});
