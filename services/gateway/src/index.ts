// Front door of the gateway package: what the embedded mode, the system tests and tooling may import.
export { answerClientError, startGatewayApp, type GatewayApp, type GatewayDeps, type ReadinessCheck } from './app';
export { DEFAULT_BODY_LIMIT_BYTES, loadGatewayConfig, type GatewayConfig } from './config';
// The layers of the A2A bindings, for bench/v1-mapping.ts (each binding's own cost per request, issue 21).
export { assertJsonDepth, parseJsonBytes } from './http/body';
export { JSON_RPC_CONTENT_TYPE, REST_CONTENT_TYPE, writeJson } from './http/a2a-v1-router';
export { matchRestRoute, restParams } from './http/v1-rest-routes';
export { JsonRpcHandler, spliceRawResult } from './protocol/jsonrpc-handler';
export type { AgentOperations, OperationContext } from './protocol/operations';
export { parseEnvelope } from './protocol/validate';
export { asksForV0, isV1Method, negotiateV1, V1Handler } from './protocol/v1/handler';
