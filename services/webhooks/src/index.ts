// Front door of the webhooks package: what the embedded mode, the system tests and tooling may import.
export {
  grpcPushSource,
  grpcUserVerifier,
  startWebhooksApp,
  webhooksAuthPolicy,
  TASK_UPDATES_GROUP,
  TASK_UPDATES_TOPIC,
  type WebhookEgressOptions,
  type WebhooksApp,
  type WebhooksTeam,
} from './app';
export { loadWebhooksConfig, type WebhooksConfig } from './config';
export type { DeliveryLogDoc } from './delivery';
export { openDeliveryLog } from './delivery';
export { listDeliveries, redactTarget, type DeliveryView, type LoggedOutcome } from './delivery-log';
export { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signBody, verifySignature } from './egress/signer';
