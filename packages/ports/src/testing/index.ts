export { describeDocumentStoreContract } from './document-store.contract';
export { describeBlobStoreContract } from './blob-store.contract';
export { describeBusContract } from './bus.contract';
export { describeEventLogContract } from './event-log.contract';
export { describeRateLimiterContract } from './rate-limiter.contract';
export { describeCacheContract } from './cache.contract';
