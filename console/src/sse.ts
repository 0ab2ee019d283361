/** One Server-Sent Events frame: its `id:` (if any) and its `data:` lines joined. Comments (`: ping`) are skipped. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Splits a growing text buffer into complete SSE frames (a blank line ends one). Returns the frames and the
 * unfinished rest, to be prefixed to the next chunk. CRLF and LF line endings are both accepted.
 */
export function takeFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const text = buffer.replace(/\r\n?/g, '\n');
  const frames: SseFrame[] = [];
  let start = 0;
  for (let end = text.indexOf('\n\n', start); end >= 0; end = text.indexOf('\n\n', start)) {
    const block = text.slice(start, end);
    start = end + 2;
    const data: string[] = [];
    const frame: SseFrame = { data: '' };
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') frame.id = value;
      else if (field === 'event') frame.event = value;
    }
    if (data.length === 0) continue;
    frame.data = data.join('\n');
    frames.push(frame);
  }
  return { frames, rest: text.slice(start) };
}

/** Reads an SSE body, calling onFrame for each frame as it arrives; resolves when the stream ends. */
export async function readFrames(
  body: ReadableStream<Uint8Array>,
  onFrame: (frame: SseFrame) => void,
  signal?: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  const abort = (): void => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const taken = takeFrames(rest + decoder.decode(value, { stream: true }));
      rest = taken.rest;
      for (const f of taken.frames) onFrame(f);
    }
    const last = takeFrames(`${rest}${decoder.decode()}\n\n`);
    for (const f of last.frames) onFrame(f);
  } finally {
    signal?.removeEventListener('abort', abort);
  }
}
