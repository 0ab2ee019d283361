import { describe } from 'vitest';
import { engineUrlsSet, startDistributed } from '../distributed/cluster';
import { describeConformance } from './suite';

// Distributed layout: every service its own process (two gateways, two runners) on Kafka, MongoDB (FerretDB) and
// Redis. Needs the engines (KAFKA_BROKERS, MONGO_URL, REDIS_URL); `npm test` starts them. The gateways resolve
// with real DNS here, so the suite uses a public IP literal where a URL must pass the public-address check.
describe.runIf(engineUrlsSet)('distributed layout', () => {
  describeConformance('distributed', async () => (await startDistributed()).sut, { stubbedDns: false });
});
