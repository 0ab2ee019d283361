export * from './lifecycle';
export * from './in-flight';
export * from './grpc';
export { withInProcessGrpc } from './in-process';
export * from './reflection';
export * from './net-guard';
export * from './egress';
export * from './health';
export * from './run-main';
