// Front door of the gateway package: what the embedded mode, the system tests and tooling may import.
export { answerClientError, startGatewayApp, type GatewayApp, type GatewayDeps, type ReadinessCheck } from './app';
export { DEFAULT_BODY_LIMIT_BYTES, loadGatewayConfig, type GatewayConfig } from './config';
