// Imported first by main.ts, before anything else: the tracing SDK hooks `require`, so it must start before
// express, @grpc/grpc-js, kafkajs, mongodb or ioredis are first required (the bundle keeps them external and
// evaluates imports in order). Does nothing unless tracing is configured (packages/telemetry/README.md).
import { startTelemetry } from '@a2a-inbound/telemetry';

export const telemetry = startTelemetry({ serviceName: 'a2a-inbound-runner', env: process.env });
