import { InvalidParamsError } from '@a2a-inbound/errors';

/**
 * ProtoJSON's parsing rule for A2A 1.0 requests (spec 5.5 "follows the ProtoJSON specification"): "Parsers accept
 * both the lowerCamelCase name … and the original proto field name". Clients MUST write camelCase, but a
 * `task_id` must not be read as "no taskId" (a ListTasks `context_id` filter silently dropped), so the request
 * messages' snake_case fields are renamed to their camelCase names before anything reads them, as the official
 * SDK servers' ProtoJSON parsers do. Only fields of a2a.proto's request messages: Struct and Value fields
 * (`metadata`, a part's `data`) keep their keys as sent.
 */

/** A message's fields that have a snake_case name: that name → its camelCase name. */
type Schema = Readonly<Record<string, string>>;

const PUSH_CONFIG: Schema = { task_id: 'taskId' };
const PART: Schema = { media_type: 'mediaType' };
const MESSAGE: Schema = {
  message_id: 'messageId',
  context_id: 'contextId',
  task_id: 'taskId',
  reference_task_ids: 'referenceTaskIds',
};
const CONFIGURATION: Schema = {
  accepted_output_modes: 'acceptedOutputModes',
  task_push_notification_config: 'taskPushNotificationConfig',
  history_length: 'historyLength',
  return_immediately: 'returnImmediately',
};
const SEND: Schema = {};
const BY_TASK_ID: Schema = { task_id: 'taskId' };
const LIST_PUSH_CONFIGS: Schema = { task_id: 'taskId', page_size: 'pageSize', page_token: 'pageToken' };
const GET_TASK: Schema = { history_length: 'historyLength' };
const LIST_TASKS: Schema = {
  context_id: 'contextId',
  page_size: 'pageSize',
  page_token: 'pageToken',
  history_length: 'historyLength',
  status_timestamp_after: 'statusTimestampAfter',
  include_artifacts: 'includeArtifacts',
};

/** Where each message sits inside another (camelCase field → schema; `parts` is repeated). */
const CHILDREN = new Map<Schema, readonly (readonly [string, Schema, boolean])[]>([
  [
    SEND,
    [
      ['message', MESSAGE, false],
      ['configuration', CONFIGURATION, false],
    ],
  ],
  [MESSAGE, [['parts', PART, true]]],
  [CONFIGURATION, [['taskPushNotificationConfig', PUSH_CONFIG, false]]],
]);

const BY_METHOD: Readonly<Record<string, Schema>> = {
  SendMessage: SEND,
  SendStreamingMessage: SEND,
  GetTask: GET_TASK,
  ListTasks: LIST_TASKS,
  CreateTaskPushNotificationConfig: PUSH_CONFIG,
  GetTaskPushNotificationConfig: BY_TASK_ID,
  DeleteTaskPushNotificationConfig: BY_TASK_ID,
  ListTaskPushNotificationConfigs: LIST_PUSH_CONFIGS,
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function rename(m: Record<string, unknown>, s: Schema, path: string): void {
  for (const key of Object.keys(m)) {
    const camel = key.includes('_') && Object.hasOwn(s, key) ? s[key] : undefined;
    if (camel === undefined) continue;
    // ProtoJSON: the same field twice is an error, whichever names it came by.
    if (Object.hasOwn(m, camel))
      throw new InvalidParamsError(`${path}${camel} is given twice (as ${camel} and ${key})`);
    m[camel] = m[key];
    delete m[key];
  }
  for (const [field, child, repeated] of CHILDREN.get(s) ?? []) {
    const v = m[field];
    if (repeated && Array.isArray(v)) {
      for (const item of v) if (isObject(item)) rename(item, child, `${path}${field}[].`);
    } else if (isObject(v)) rename(v, child, `${path}${field}.`);
  }
}

/** A 1.0 request's params with proto field names (`task_id`) renamed in place to their camelCase names. */
export function acceptProtoFieldNames(method: string, params: Record<string, unknown>): void {
  const s = BY_METHOD[method];
  if (s) rename(params, s, '');
}
