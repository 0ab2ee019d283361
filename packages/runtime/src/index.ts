export * from './lifecycle';
export * from './grpc';
