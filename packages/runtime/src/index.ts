export * from './lifecycle';
export * from './grpc';
export * from './reflection';
export * from './net-guard';
export * from './egress';
export * from './health';
export * from './run-main';
