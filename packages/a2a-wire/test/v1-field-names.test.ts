import { describe, expect, it } from 'vitest';
import { acceptProtoFieldNames } from '../src/v1-field-names';

describe('1.0 requests: proto field names accepted as ProtoJSON parsers accept them (spec 5.5)', () => {
  it('renames the request messages’ snake_case fields, nested messages and repeated parts included', () => {
    const p: Record<string, unknown> = {
      message: {
        message_id: 'm1',
        context_id: 'c1',
        task_id: 't1',
        reference_task_ids: ['t0'],
        role: 'ROLE_USER',
        parts: [{ text: 'x', media_type: 'text/plain' }],
        metadata: { snake_key: 1 },
      },
      configuration: {
        history_length: 2,
        return_immediately: true,
        accepted_output_modes: ['text/plain'],
        task_push_notification_config: { url: 'https://h.example/x', task_id: 't1' },
      },
      metadata: { keep_me: true },
    };
    acceptProtoFieldNames('SendMessage', p);
    expect(p).toEqual({
      message: {
        messageId: 'm1',
        contextId: 'c1',
        taskId: 't1',
        referenceTaskIds: ['t0'],
        role: 'ROLE_USER',
        parts: [{ text: 'x', mediaType: 'text/plain' }],
        metadata: { snake_key: 1 },
      },
      configuration: {
        historyLength: 2,
        returnImmediately: true,
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: { url: 'https://h.example/x', taskId: 't1' },
      },
      metadata: { keep_me: true },
    });
  });

  it('every method with snake_case fields: push configs, GetTask, ListTasks', () => {
    const create: Record<string, unknown> = { task_id: 't', url: 'u', id: 'c' };
    acceptProtoFieldNames('CreateTaskPushNotificationConfig', create);
    expect(create).toEqual({ taskId: 't', url: 'u', id: 'c' });
    for (const m of ['GetTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig']) {
      const p: Record<string, unknown> = { task_id: 't', id: 'c' };
      acceptProtoFieldNames(m, p);
      expect(p).toEqual({ taskId: 't', id: 'c' });
    }
    const list: Record<string, unknown> = { task_id: 't', page_size: 5, page_token: 'x' };
    acceptProtoFieldNames('ListTaskPushNotificationConfigs', list);
    expect(list).toEqual({ taskId: 't', pageSize: 5, pageToken: 'x' });
    const get: Record<string, unknown> = { id: 't', history_length: 1 };
    acceptProtoFieldNames('GetTask', get);
    expect(get).toEqual({ id: 't', historyLength: 1 });
    const tasks: Record<string, unknown> = {
      context_id: 'c',
      page_size: 1,
      page_token: '',
      history_length: 0,
      status_timestamp_after: '2026-01-01T00:00:00.000Z',
      include_artifacts: true,
      status: 'TASK_STATE_WORKING',
    };
    acceptProtoFieldNames('ListTasks', tasks);
    expect(tasks).toEqual({
      contextId: 'c',
      pageSize: 1,
      pageToken: '',
      historyLength: 0,
      statusTimestampAfter: '2026-01-01T00:00:00.000Z',
      includeArtifacts: true,
      status: 'TASK_STATE_WORKING',
    });
  });

  it('a field given by both names is -32602; unknown snake_case keys and `__proto__` are left alone', () => {
    expect(() =>
      acceptProtoFieldNames('GetTaskPushNotificationConfig', { taskId: 'a', task_id: 'b', id: 'c' }),
    ).toThrow(/taskId is given twice/);
    expect(() =>
      acceptProtoFieldNames('SendMessage', { message: { messageId: 'a', message_id: 'b', parts: [] } }),
    ).toThrow(/message\.messageId is given twice/);
    const p = JSON.parse('{"id":"t","not_a_field":1,"__proto__":{"x":1}}') as Record<string, unknown>;
    acceptProtoFieldNames('GetTask', p);
    expect(Object.keys(p)).toEqual(['id', 'not_a_field', '__proto__']);
  });
});
