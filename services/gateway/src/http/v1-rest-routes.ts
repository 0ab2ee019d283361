import { acceptProtoFieldNames } from '@a2a-inbound/a2a-wire';
import { AppError } from '@a2a-inbound/errors';
import { isObject } from '../protocol/validate';
import type { V1Method } from '../protocol/v1/handler';
import { assertJsonDepth, parseJsonBytes } from './body';

/** The HTTP+JSON binding of A2A 1.0: which operation a method and path name, and the request they carry. */

export interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  op: V1Method;
  /** The path parameters, in the order of the pattern's groups, as request fields. */
  params: readonly string[];
  body: boolean;
}

/** Spec 11.3 (and the proto's google.api.http rules; SubscribeToTask is GET there and POST in 11.3: both). */
const REST_ROUTES: readonly RestRoute[] = [
  { method: 'POST', pattern: /^\/message:send$/, op: 'SendMessage', params: [], body: true },
  { method: 'POST', pattern: /^\/message:stream$/, op: 'SendStreamingMessage', params: [], body: true },
  { method: 'GET', pattern: /^\/tasks$/, op: 'ListTasks', params: [], body: false },
  { method: 'GET', pattern: /^\/tasks\/([^/:]+)$/, op: 'GetTask', params: ['id'], body: false },
  { method: 'POST', pattern: /^\/tasks\/([^/:]+):cancel$/, op: 'CancelTask', params: ['id'], body: true },
  { method: 'POST', pattern: /^\/tasks\/([^/:]+):subscribe$/, op: 'SubscribeToTask', params: ['id'], body: false },
  { method: 'GET', pattern: /^\/tasks\/([^/:]+):subscribe$/, op: 'SubscribeToTask', params: ['id'], body: false },
  {
    method: 'POST',
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    op: 'CreateTaskPushNotificationConfig',
    params: ['taskId'],
    body: true,
  },
  {
    method: 'GET',
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/,
    op: 'ListTaskPushNotificationConfigs',
    params: ['taskId'],
    body: false,
  },
  {
    method: 'GET',
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/:]+)$/,
    op: 'GetTaskPushNotificationConfig',
    params: ['taskId', 'id'],
    body: false,
  },
  {
    method: 'DELETE',
    pattern: /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/:]+)$/,
    op: 'DeleteTaskPushNotificationConfig',
    params: ['taskId', 'id'],
    body: false,
  },
  { method: 'GET', pattern: /^\/extendedAgentCard$/, op: 'GetExtendedAgentCard', params: [], body: false },
];

/** The query fields a2a.proto types as integers or booleans (GetTask, ListTasks, List…PushNotificationConfigs). */
const INTEGER_QUERY_FIELDS = new Set(['pageSize', 'historyLength']);
const BOOLEAN_QUERY_FIELDS = new Set(['includeArtifacts']);

/**
 * Query parameters (spec 11.5): camelCase names, numbers as decimals, booleans as true/false. Typed by the
 * field, not by the value's shape: `contextId=12345` stays a string. A value that does not parse stays a
 * string, so the handler refuses it with the field's name.
 */
function queryFields(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    if (k === 'A2A-Version' || typeof v !== 'string') continue;
    if (INTEGER_QUERY_FIELDS.has(k) && /^-?\d{1,15}$/.test(v)) out[k] = Number(v);
    else if (BOOLEAN_QUERY_FIELDS.has(k) && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else out[k] = v;
  }
  return out;
}

/** A path segment, percent-decoded; a bad escape (`%E0`) is the client's error, not a URIError (500). */
function pathParam(segment: string, name: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AppError('INVALID_PARAMS', `The path's ${name} is not a valid percent-encoded value`);
  }
}

/** A route and the path's groups (the path parameters, still percent-encoded). */
export interface RestMatch {
  route: RestRoute;
  groups: RegExpExecArray;
}

/** The route of `method` and `path` (the path under `/rest`, without its query), matched once. */
export function matchRestRoute(method: string, path: string): RestMatch | undefined {
  for (const route of REST_ROUTES) {
    if (route.method !== method) continue;
    const groups = route.pattern.exec(path);
    if (groups) return { route, groups };
  }
  return undefined;
}

/** Whether any route has this path (another method is then "not allowed here", not "not found"). */
export const knownRestPath = (path: string): boolean => REST_ROUTES.some((r) => r.pattern.test(path));

/**
 * The request of a matched route: the body's object (when the route takes one), then the query's fields
 * (`query`: the parsed query string, absent without one), then the path's parameters.
 */
export function restParams(
  match: RestMatch,
  json: Buffer,
  query: Record<string, unknown> | undefined,
): Record<string, unknown> {
  let fromBody: Record<string, unknown> | undefined;
  if (match.route.body && json.length > 0) {
    const parsed = parseJsonBytes(json);
    assertJsonDepth(parsed);
    if (!isObject(parsed)) throw new AppError('INVALID_PARAMS', 'The body must be a JSON object');
    acceptProtoFieldNames(match.route.op, parsed);
    fromBody = parsed;
  }
  // Without a query string the parsed body (ours alone) takes the path's fields itself, uncopied.
  const params = query ? { ...queryFields(query), ...fromBody } : (fromBody ?? {});
  const names = match.route.params;
  for (let i = 0; i < names.length; i++) params[names[i]!] = pathParam(match.groups[i + 1] ?? '', names[i]!);
  return params;
}
