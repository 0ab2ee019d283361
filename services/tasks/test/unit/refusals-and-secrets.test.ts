import { describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { taskServiceSetup, textMsg } from '../support/task-service-setup';

const setup = taskServiceSetup;
const msg = (messageId: string) => textMsg(messageId);

const outage = () => new AppError('UNAVAILABLE', 'engine down');

describe('refused sends are never charged', () => {
  it('a send whose task cannot be stored is refused, refunded, and its messageId stays free', async () => {
    const { tasks, collections, caller, credits } = await setup();
    const before = await credits();
    const insert = collections.tasks.insert.bind(collections.tasks);
    collections.tasks.insert = () => Promise.reject(outage());
    await expect(tasks.send(caller, msg('s1'), { blocking: false })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await credits()).toBe(before);
    collections.tasks.insert = insert;
    const task = await tasks.send(caller, msg('s1'), { blocking: false }); // the retry is a new, charged send
    expect(task.status.state).toBe('working');
    expect(await credits()).toBe(before - 1);
  });

  // An unreachable log (an outage) does not refuse the send: the stored task is authoritative and readers
  // follow it (ADR 0014, tested in event-log-rebuild.test.ts). A log that fails otherwise refuses it. (With push
  // on: a push-off agent's first event is logged by the run's first write, ADR 0060, log-appends-per-send.test.ts.)
  it('a send whose first event the log refuses (not an outage) is refused, refunded, and leaves no task behind', async () => {
    const { tasks, collections, eventLog, caller, credits } = await setup({ pushOn: true });
    const before = await credits();
    // Every write to the log goes through appendBatch (one event or a run's batch), or appendBatchLazy on an
    // in-memory log (ADR 0067).
    const appendBatch = eventLog.appendBatch.bind(eventLog);
    const appendBatchLazy = eventLog.appendBatchLazy.bind(eventLog);
    eventLog.appendBatch = () => Promise.reject(new Error('the log refused the event'));
    eventLog.appendBatchLazy = () => Promise.reject(new Error('the log refused the event'));
    await expect(tasks.send(caller, msg('s2'), { blocking: false })).rejects.toThrow('the log refused the event');
    expect(await credits()).toBe(before);
    expect(await collections.tasks.count({ subscriptionId: 'demo-subscription' })).toBe(0);
    eventLog.appendBatch = appendBatch;
    eventLog.appendBatchLazy = appendBatchLazy;
    await tasks.send(caller, msg('s2'), { blocking: false });
    expect(await credits()).toBe(before - 1);
  });

  it('a send refused for insufficient credits is not charged and a later send after a top-up is', async () => {
    const { tasks, control, caller, credits } = await setup();
    await control.accounts.addCredits('demo-subscription', -(await credits()));
    await expect(tasks.send(caller, msg('s3'), { blocking: false })).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
    });
    expect(await credits()).toBe(0);
    await control.accounts.addCredits('demo-subscription', 2);
    await tasks.send(caller, msg('s3'), { blocking: false });
    expect(await credits()).toBe(1);
  });

  it('a bus outage after the task is stored does not refuse the send: the task is accepted (the sweeper republishes its run)', async () => {
    const { tasks, bus, collections, caller, credits } = await setup();
    const before = await credits();
    const publish = bus.publish.bind(bus);
    bus.publish = (m) => (m.topic === 'a2a.run.requested' ? Promise.reject(outage()) : publish(m));
    const task = await tasks.send(caller, msg('s4'), { blocking: false });
    expect(task.status.state).toBe('working');
    expect((await collections.tasks.get(task.id))?.doc.status.state).toBe('working');
    expect(await credits()).toBe(before - 1);
  });

  it('a repeat of an accepted messageId is not charged again', async () => {
    const { tasks, caller, credits } = await setup();
    const before = await credits();
    const a = await tasks.send(caller, msg('s5'), { blocking: false });
    const b = await tasks.send(caller, msg('s5'), { blocking: false });
    expect(b.id).toBe(a.id);
    expect(await credits()).toBe(before - 1);
  });
});

describe('push notification config secrets are write-only', () => {
  it('set, get and list never return the token or authentication.credentials; delivery still gets them', async () => {
    const { tasks, control, caller } = await setup();
    await control.catalog.updateAgentSettings({ subscriptionId: 'demo-subscription', role: 'operator' }, 'demo-echo', {
      pushNotificationsEnabled: true,
    });
    const task = await tasks.send(caller, msg('p1'), { blocking: false });
    const config = {
      id: 'c1',
      url: 'https://hooks.example.com/a2a',
      token: 'tok-secret-123',
      authentication: { schemes: ['Bearer'], credentials: 'bearer-secret-456' },
    };
    const set = await tasks.setPushConfig(caller, task.id, config);
    const got = await tasks.getPushConfig(caller, task.id, 'c1');
    const listed = await tasks.listPushConfigs(caller, task.id);
    for (const view of [set, got, ...listed]) {
      const json = JSON.stringify(view);
      expect(json).not.toContain('tok-secret-123');
      expect(json).not.toContain('bearer-secret-456');
      expect(view).not.toHaveProperty('token');
      expect(view.authentication).toEqual({ schemes: ['Bearer'] });
      expect(view.url).toBe('https://hooks.example.com/a2a');
    }
    expect(listed).toHaveLength(1);
    const delivery = await tasks.pushDelivery(task.id);
    expect(delivery.targets[0]?.token).toBe('tok-secret-123');
    expect(delivery.targets[0]?.authentication).toEqual(config.authentication);
  });
});
