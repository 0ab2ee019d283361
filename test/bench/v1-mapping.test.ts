import { a2aV1 } from '@a2a-inbound/proto';
import { describe, expect, it } from 'vitest';
import { formatMappings, lastAnswer, measureMappings, runCase } from '../../bench/v1-mapping';

// bench/v1-mapping.ts (issue 21: "a 1.0 request costs no more CPU than a 0.3 one"): each binding's own layer
// in isolation, CPU time per request. The bounds are generous (a loaded 2-core VM, few iterations): they catch
// a binding whose mapping grew by tens of µs, not the last microsecond; the numbers are printed for the log.
describe('bench/v1-mapping.ts: the per-request cost of each binding layer, 0.3 against each 1.0 binding', () => {
  it('answers every case with the task, in its version shape', async () => {
    const json = async (name: string): Promise<unknown> => {
      await runCase(name, true);
      const answer = await lastAnswer();
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
    };
    const completed03 = { result: { status: { state: 'completed' } } };
    expect(await json('send 0.3 JSON-RPC')).toMatchObject(completed03);
    expect(await json('get 0.3 JSON-RPC')).toMatchObject(completed03);
    const completed10 = { status: { state: 'TASK_STATE_COMPLETED' } };
    expect(await json('send 1.0 JSON-RPC')).toMatchObject({ result: { task: completed10 } });
    expect(await json('get 1.0 JSON-RPC')).toMatchObject({ result: completed10 });
    expect(await json('send 1.0 HTTP+JSON')).toMatchObject({ task: completed10 });
    expect(await json('get 1.0 HTTP+JSON')).toMatchObject(completed10);
    const sent = a2aV1.SendMessageResponse.decode((await runCase('send 1.0 gRPC')) as Buffer);
    expect(sent.payload?.$case === 'task' && sent.payload.task.status?.state).toBe(
      a2aV1.TaskState.TASK_STATE_COMPLETED,
    );
    expect(a2aV1.Task.decode((await runCase('get 1.0 gRPC')) as Buffer).artifacts).toHaveLength(1);
  });

  it('each 1.0 binding costs about what the 0.3 JSON-RPC layer costs', { timeout: 120_000 }, async () => {
    const r = await measureMappings(1_500, 3);
    process.stdout.write(`${formatMappings(r).join('\n')}\n`);
    for (const binding of ['JSON-RPC', 'HTTP+JSON', 'gRPC']) {
      // GetTask: the same parse of the stored task, a different shape written; within 2.5x.
      expect(r.us[`get 1.0 ${binding}`]!).toBeLessThan(2.5 * r.us['get 0.3 JSON-RPC']! + 5);
      // SendMessage: 0.3 splices the stored Task JSON (ADR 0053), 1.0 must parse and map it (~10 µs here, of a
      // send's ~1,500 µs); over 60 µs more would be a mapping gone wrong.
      expect(r.us[`send 1.0 ${binding}`]! - r.us['send 0.3 JSON-RPC']!).toBeLessThan(60);
    }
  });
});
