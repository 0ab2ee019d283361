import { randomBytes } from 'node:crypto';
import { InvalidParamsError } from '@a2a-inbound/errors';
import { checkPublicHttpsUrl, type Resolver } from '@a2a-inbound/runtime';
import { isObject, LIMITS } from './send';
import { PROTOCOL_VERSION_V1 } from './v1';

/**
 * The rules of a push notification config (tasks/pushNotificationConfig/set and its 1.0 and gRPC forms), in one
 * place for every door: the gateway's public endpoints and a team's direct TasksService.SetPushConfig (ADR 0032).
 */

/** The shared secret that signs deliveries: never empty (anyone could sign with an empty key), bounded. */
export const MAX_PUSH_TOKEN_CHARS = 1024;
/**
 * The token of a 1.0 config created without one (ADR 0063): 32 random bytes as base64url (43 characters), so
 * every delivery is still signed (`X-A2A-Signature`). Returned to its creator once, in the create answer.
 */
export function mintPushToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The `authentication` object (schemes and credentials) as JSON; a config is stored with its task. */
export const MAX_PUSH_AUTHENTICATION_BYTES = LIMITS.maxMetadataBytes;

export interface CheckedPushConfig {
  id: string;
  url: string;
  token: string;
  authentication?: Record<string, unknown>;
}

/** How a receiver URL is checked: public https (Webhook rule 1), or an operator's push allow-list beside it. */
export type PushUrlCheck = (url: string, resolver: Resolver) => Promise<{ ok: true } | { ok: false; reason: string }>;

/**
 * A caller's PushNotificationConfig: url public https (or what `checkUrl`, the gateway's operator allow-list,
 * accepts), a token that signs deliveries, an optional id.
 */
export async function checkPushConfig(
  config: unknown,
  resolver: Resolver,
  checkUrl: PushUrlCheck = checkPublicHttpsUrl,
): Promise<CheckedPushConfig> {
  if (!isObject(config)) throw new InvalidParamsError('pushNotificationConfig is required');
  if (typeof config.url !== 'string') throw new InvalidParamsError('pushNotificationConfig.url is required');
  if (typeof config.token !== 'string' || config.token.length === 0 || config.token.length > MAX_PUSH_TOKEN_CHARS) {
    throw new InvalidParamsError('pushNotificationConfig.token is required (the shared secret that signs deliveries)');
  }
  if (config.id !== undefined && (typeof config.id !== 'string' || config.id.length > LIMITS.maxIdChars))
    throw new InvalidParamsError('pushNotificationConfig.id must be a string');
  const authentication = isObject(config.authentication) ? config.authentication : undefined;
  if (authentication && Buffer.byteLength(JSON.stringify(authentication)) > MAX_PUSH_AUTHENTICATION_BYTES)
    throw new InvalidParamsError(
      `pushNotificationConfig.authentication is larger than ${MAX_PUSH_AUTHENTICATION_BYTES} bytes`,
    );
  const check = await checkUrl(config.url, resolver);
  if (!check.ok) throw new InvalidParamsError(`pushNotificationConfig.url: ${check.reason}`);
  return {
    id: typeof config.id === 'string' ? config.id : '',
    url: config.url,
    token: config.token,
    ...(authentication ? { authentication } : {}),
  };
}

/** A config as TasksService carries it (`authentication_json`, `protocol_version`), checked by the same rules. */
export async function checkPushConfigFields(
  config: { id: string; url: string; token: string; authenticationJson: string; protocolVersion: string },
  resolver: Resolver,
): Promise<CheckedPushConfig> {
  if (config.protocolVersion !== '' && config.protocolVersion !== PROTOCOL_VERSION_V1)
    throw new InvalidParamsError(`pushNotificationConfig.protocolVersion must be empty or ${PROTOCOL_VERSION_V1}`);
  return checkPushConfig(
    {
      ...(config.id ? { id: config.id } : {}),
      url: config.url,
      token: config.token,
      ...(config.authenticationJson ? { authentication: parseAuthenticationJson(config.authenticationJson) } : {}),
    },
    resolver,
  );
}

/** `authentication_json` as an object; anything else is the caller's error (INVALID_ARGUMENT), not a fault. */
export function parseAuthenticationJson(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new InvalidParamsError('pushNotificationConfig.authentication is not valid JSON');
  }
  if (!isObject(value)) throw new InvalidParamsError('pushNotificationConfig.authentication must be an object');
  return value;
}
