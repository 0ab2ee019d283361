import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SseWriter } from '../../src/http/sse';

const HEARTBEAT_MS = 15_000;

/** The part of an Express response the writer uses; records what was written, and when. */
function fakeResponse() {
  const opened = Date.now();
  const written: { at: number; chunk: string }[] = [];
  const res = Object.assign(new EventEmitter(), {
    status: () => res,
    setHeader: () => res,
    flushHeaders: () => undefined,
    write: (chunk: string) => {
      written.push({ at: Date.now(), chunk });
      return true;
    },
    end: () => undefined,
  });
  return {
    res: res as unknown as Response,
    written,
    pings: () => written.filter((w) => w.chunk === ': ping\n\n').length,
    /** The longest time the stream said nothing, from its opening to `until`. */
    longestSilence: (until: number) => {
      const times = [opened, ...written.map((w) => w.at), until];
      return Math.max(...times.slice(1).map((t, i) => t - times[i]!));
    },
  };
}

describe('SSE keep-alive comments: one shared timer for every open stream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('many open streams share one timer, none is silent longer than the interval, and the timer stops with the last stream', () => {
    expect(vi.getTimerCount()).toBe(0);
    const streams = Array.from({ length: 100 }, (_, i) => {
      vi.advanceTimersByTime(i % 7); // opened at different moments
      const r = fakeResponse();
      return { ...r, writer: new SseWriter(r.res, HEARTBEAT_MS) };
    });
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(HEARTBEAT_MS * 10);
    for (const s of streams) {
      expect(s.longestSilence(Date.now())).toBeLessThanOrEqual(HEARTBEAT_MS);
      // About one comment per interval (a quarter-interval tick may come up to a quarter early), not more.
      expect(s.pings()).toBeGreaterThanOrEqual(10);
      expect(s.pings()).toBeLessThanOrEqual(14);
    }
    for (const s of streams.slice(1)) s.writer.end();
    expect(vi.getTimerCount()).toBe(1);
    streams[0]!.writer.end();
    expect(vi.getTimerCount()).toBe(0);
    const before = streams.map((s) => s.pings());
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    expect(streams.map((s) => s.pings())).toEqual(before); // ended streams are not written to
  });

  it('a stream that sent a frame is not pinged until it has been silent for most of an interval', async () => {
    const busy = fakeResponse();
    const b = new SseWriter(busy.res, HEARTBEAT_MS);
    const frames: number[] = [];
    for (let i = 1; i <= 20; i++) {
      vi.advanceTimersByTime(HEARTBEAT_MS / 3);
      await b.send({ n: i }, i);
      frames.push(i);
    }
    expect(busy.pings()).toBe(0); // a frame every third of an interval: no comment needed
    vi.advanceTimersByTime(HEARTBEAT_MS);
    expect(busy.pings()).toBe(1);
    expect(busy.longestSilence(Date.now())).toBeLessThanOrEqual(HEARTBEAT_MS);
    expect(busy.written.filter((w) => w.chunk.startsWith('id:')).map((w) => /^id: (\d+)/.exec(w.chunk)![1])).toEqual(
      frames.map(String),
    );
    b.end();
    expect(vi.getTimerCount()).toBe(0);
  });
});
