import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  InMemoryRateLimiter,
} from '../src/index';
import {
  describeBlobStoreContract,
  describeBusContract,
  describeCacheContract,
  describeDocumentStoreContract,
  describeEventLogContract,
  describeRateLimiterContract,
} from '../src/testing/index';

describeDocumentStoreContract('in-memory', async () => new InMemoryDocumentStore());
describeBlobStoreContract('in-memory', async () => new InMemoryBlobStore());
describeBusContract('in-memory', async () => new InMemoryBus({ retryDelayMs: 5 }), {
  deliversAfterPublishResolves: true,
});
{
  // Two "clients" of one in-memory log/limiter/cache stand for two replicas sharing one engine.
  const log = new InMemoryEventLog();
  describeEventLogContract('in-memory', async () => log, { lose: (stream) => log.dropEvents(stream) });
  const limiter = new InMemoryRateLimiter();
  describeRateLimiterContract('in-memory', async () => limiter);
  const cache = new InMemoryCache();
  describeCacheContract('in-memory', async () => cache);
}
