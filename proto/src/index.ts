// Generated contracts, re-exported under stable names. The generated code lives in ../gen (never edited).
export * as tasksV1 from '../gen/a2a_inbound/tasks/v1/tasks';
export * as controlV1 from '../gen/a2a_inbound/control/v1/control';
export * as eventsV1 from '../gen/a2a_inbound/events/v1/events';
export * as healthV1 from '../gen/grpc/health/v1/health';
export * as linkerV1 from '../gen/a2a_inbound/linker/v1/linker';
export * as webhooksV1 from '../gen/a2a_inbound/webhooks/v1/webhooks';
// The official A2A 1.0 service (lf.a2a.v1, vendored unchanged) and the google.rpc error model its errors use.
export * as a2aV1 from '../gen/lf/a2a/v1/a2a';
export * as googleRpcStatus from '../gen/google/rpc/status';
export * as googleRpcErrorDetails from '../gen/google/rpc/error_details';
// Every proto as one google.protobuf.FileDescriptorSet (base64), for gRPC server reflection.
export { FILE_DESCRIPTOR_SET_BASE64 } from '../gen/descriptor_set';
export { encodeShared } from './encode';
