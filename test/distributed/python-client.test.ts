import { describe } from 'vitest';
import { describePythonClient } from '../e2e/python-client-suite';
import { engineUrlsSet, startDistributed } from './cluster';

// The official Python client against separate processes (two gateways, two runners) on the real engines.
describe.runIf(engineUrlsSet)('distributed layout', () => {
  describePythonClient('distributed', async () => (await startDistributed()).sut);
});
