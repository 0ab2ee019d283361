import { silentLogger } from '@a2a-inbound/logger';
import { startSystem } from '@a2a-inbound/embedded';
import { describeA2aEndToEnd } from './suite';

// Embedded layout: the five services in this process, in-memory adapters (what `npm start` runs).
describeA2aEndToEnd('embedded', async () => {
  const system = await startSystem({ env: { PORT: '0', HOST: '127.0.0.1' }, log: silentLogger() });
  const creds = system.tasks.seed!.credentials!;
  return {
    baseUrl: system.baseUrl,
    a2aKey: creds.a2aKey,
    invokeKey: creds.invokeKey,
    otherBaseUrls: [],
    tasksAddress: system.tasks.grpc.address,
    subscriptionId: system.tasks.seed!.subscriptionId,
    close: () => system.close(),
  };
});
