import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sut } from '@a2a-inbound/testing';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const DRIVER = join(__dirname, 'python', 'a2a_client.py');

interface Seen {
  streaming: boolean;
  task: { id: string; state: string; text: string };
  started?: { id: string; state: string; text: string };
  after?: { id: string; state: string; text: string };
  kinds?: string[];
  warnings: string[];
}

/**
 * Interoperability with the official A2A Python client, `a2a-sdk` 0.3.x from PyPI (the client Google's ADK uses),
 * installed in a cached virtualenv by scripts/python-client.sh. Its stream assembles the answer from the
 * artifact chunks and drops a chunk that says `append: true` for an artifact it has not seen: before the first
 * chunk stopped saying so, every streamed answer ended `completed` with no text.
 */
export function describePythonClient(layout: string, start: () => Promise<Sut>): void {
  describe(`the official Python client (a2a-sdk 0.3.x) against the ${layout} system`, () => {
    let sut: Sut;
    let python: string;

    const drive = async (scenario: string, agent: string, text = 'hello'): Promise<Seen> => {
      const { stdout } = await run(python, [DRIVER, scenario, `${sut.baseUrl}/agents/${agent}`, sut.a2aKey, text], {
        timeout: 60_000,
      });
      return JSON.parse(stdout) as Seen;
    };

    beforeAll(async () => {
      // Installs on first use (pip from PyPI, ~30 s), then answers from the cache at once.
      python = execFileSync(join(root, 'scripts', 'python-client.sh'), { encoding: 'utf8', timeout: 300_000 }).trim();
      sut = await start();
    }, 480_000);
    afterAll(async () => {
      await sut?.close();
    }, 60_000);

    it('message/send (blocking): the completed task with the answer', async () => {
      const seen = await drive('send', 'demo-echo', 'hello from python');
      expect(seen.task).toMatchObject({ state: 'completed', text: 'hello from python' });
      expect(seen.warnings).toEqual([]);
    });

    it('message/stream: the client assembles the whole answer from the chunks and drops none', async () => {
      const text = 'a streamed answer that arrives as several chunks';
      const seen = await drive('stream', 'demo-echo', text);
      expect(seen.streaming).toBe(true);
      expect(seen.kinds!.filter((k) => k === 'artifact-update').length).toBeGreaterThan(1);
      expect(seen.kinds!.at(-1)).toBe('status-update');
      expect(seen.task).toMatchObject({ state: 'completed', text });
      expect(seen.warnings).toEqual([]);
    });

    it('tasks/get: the stored task with its answer', async () => {
      const seen = await drive('get', 'demo-echo', 'get me');
      expect(seen.task).toMatchObject({ state: 'completed', text: 'get me' });
    });

    it('tasks/cancel: a running task ends canceled', async () => {
      const seen = await drive('cancel', 'demo-slow', 'take your time');
      expect(seen.started!.state).toBe('working');
      expect(seen.task.state).toBe('canceled');
      expect(seen.after!.state).toBe('canceled');
      expect(seen.warnings).toEqual([]);
    });

    it('tasks/resubscribe on a running task: the stream to the end, with the whole answer', async () => {
      const seen = await drive('resubscribe', 'demo-slow', 'resume me');
      expect(seen.started!.state).toBe('working');
      expect(seen.task).toMatchObject({ state: 'completed', text: 'Finished after 1500 ms: resume me' });
      expect(seen.warnings).toEqual([]);
    });
  });
}
