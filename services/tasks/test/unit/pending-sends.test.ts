import { describe, expect, it } from 'vitest';
import { taskServiceSetup, textMsg } from '../support/task-service-setup';

/** A promise the test settles: holds a send inside its accept phase (at the charge). */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('sends in their accept phase are bounded (TASKS_MAX_PENDING_SENDS)', () => {
  it('refuses one more send with OVERLOADED at once, charging nothing, and takes it once there is room', async () => {
    const { tasks, control, caller, credits } = await setup();
    const held = gate();
    const charge = control.accounts.pay.bind(control.accounts);
    let charges = 0;
    control.accounts.pay = async (...args) => {
      charges += 1;
      if (charges === 1) await held.wait; // the first send is slow to be accepted (a saturated store)
      return charge(...args);
    };
    const before = await credits();
    const accepted: string[] = [];
    const first = tasks.send(caller, textMsg('p1'), { blocking: false, accepted: () => accepted.push('p1') });
    await expect.poll(() => charges).toBe(1);

    await expect(tasks.send(caller, textMsg('p2'), { blocking: false })).rejects.toMatchObject({
      code: 'OVERLOADED',
      details: { retryAfterSeconds: 1 },
    });
    await expect(
      tasks.sendStream(caller, textMsg('p3'), {}, new AbortController().signal)[Symbol.asyncIterator]().next(),
    ).rejects.toMatchObject({ code: 'OVERLOADED' });
    expect(await credits()).toBe(before);
    expect(accepted).toEqual([]);

    held.open();
    expect((await first).status.state).toBe('working');
    expect(accepted).toEqual(['p1']);
    // The refused messageId was never claimed: the same message goes through now.
    expect((await tasks.send(caller, textMsg('p2'), { blocking: false })).status.state).toBe('working');
    expect(await credits()).toBe(before - 2);
  });

  it('drops a send whose caller gave up waiting for acceptance before it was charged', async () => {
    const { tasks, caller, credits } = await setup();
    const before = await credits();
    await expect(tasks.send(caller, textMsg('g1'), { blocking: false, gaveUp: () => true })).rejects.toMatchObject({
      code: 'OVERLOADED',
    });
    expect(await credits()).toBe(before);
    expect((await tasks.send(caller, textMsg('g1'), { blocking: false })).status.state).toBe('working');
    expect(await credits()).toBe(before - 1);
  });
});

function setup() {
  return taskServiceSetup({ config: { maxPendingSends: 1 } });
}
