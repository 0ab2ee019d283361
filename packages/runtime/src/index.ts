export * from './lifecycle';
export * from './grpc';
export * from './grpc-auth';
export { withInProcessGrpc, isInProcessCall } from './in-process';
export * from './reflection';
export * from './net-guard';
export * from './egress';
export * from './health';
export * from './run-main';
