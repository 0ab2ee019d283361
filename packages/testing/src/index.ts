import { A2AClient } from '@a2a-js/sdk/client';
import { controlV1 } from '@a2a-inbound/proto';
import { call, grpc } from '@a2a-inbound/runtime';

/** The system under test, however it was started (embedded, split, distributed). */
export interface Sut {
  baseUrl: string;
  a2aKey: string;
  invokeKey: string;
  /** Other gateway replicas, when the layout has several. */
  otherBaseUrls: string[];
  /** gRPC address of the tasks service (control plane), for test set-up through the management operations. */
  tasksAddress: string;
  /** The seeded demo subscription. */
  subscriptionId: string;
  close(): Promise<void>;
}

/**
 * Runs a management operation (the ones behind the management REST API) through the control-plane gRPC
 * service, as a user of the given role: test set-up that works the same in every layout.
 */
export async function manage(
  sut: Pick<Sut, 'tasksAddress' | 'subscriptionId'>,
  role: 'admin' | 'developer' | 'operator',
  operation: string,
  params: Record<string, unknown>,
): Promise<any> {
  const client = new controlV1.ControlPlaneServiceClient(sut.tasksAddress, grpc.credentials.createInsecure());
  try {
    const r = await call(client.manage.bind(client), {
      userId: 'test',
      role,
      subscriptionId: sut.subscriptionId,
      operation,
      paramsJson: JSON.stringify(params),
    });
    return JSON.parse(r.resultJson);
  } finally {
    client.close();
  }
}

export const cardUrl = (base: string, agentId: string): string =>
  `${base}/agents/${agentId}/.well-known/agent-card.json`;

/** An @a2a-js/sdk client that sends the bearer key on every call. */
export async function a2aClient(base: string, agentId: string, key: string): Promise<A2AClient> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  return A2AClient.fromCardUrl(cardUrl(base, agentId), { fetchImpl });
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Raw JSON-RPC over HTTP: the body may be anything (a string is sent as is). */
export async function rpc(
  url: string,
  body: unknown,
  init: { key?: string | undefined; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(init.headers ?? {}) };
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface SseFrame {
  id?: number;
  data: any;
}

/** POSTs and reads an SSE answer frame by frame; stops after `final: true` or when `stopAfter` says so. */
export async function sse(
  url: string,
  body: unknown,
  init: {
    key: string;
    headers?: Record<string, string>;
    stopAfter?: (f: SseFrame, all: SseFrame[]) => boolean;
    signal?: AbortSignal;
  },
): Promise<{ status: number; contentType: string | null; frames: SseFrame[] }> {
  const ac = new AbortController();
  init.signal?.addEventListener('abort', () => ac.abort());
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      Authorization: `Bearer ${init.key}`,
      ...(init.headers ?? {}),
    },
    body: JSON.stringify(body),
    signal: ac.signal,
  });
  const frames: SseFrame[] = [];
  if (!res.body) return { status: res.status, contentType: res.headers.get('content-type'), frames };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let idx: number;
      while ((idx = buf.indexOf('\n\n')) >= 0) {
        const raw = buf.slice(0, idx);
        buf = buf.slice(idx + 2);
        const frame: SseFrame = { data: undefined };
        const dataLines: string[] = [];
        for (const line of raw.split('\n')) {
          if (line.startsWith('id:')) frame.id = Number(line.slice(3).trim());
          else if (line.startsWith('data:')) dataLines.push(line.slice(5).trimStart());
        }
        if (dataLines.length === 0) continue;
        frame.data = JSON.parse(dataLines.join('\n'));
        frames.push(frame);
        if (init.stopAfter?.(frame, frames) || frame.data?.result?.final === true) {
          ac.abort();
          return { status: res.status, contentType: res.headers.get('content-type'), frames };
        }
      }
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  }
  return { status: res.status, contentType: res.headers.get('content-type'), frames };
}

export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() - start > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

let counter = 0;
export const uniqueId = (prefix = 'msg'): string =>
  `${prefix}-${Date.now().toString(36)}-${process.pid}-${(counter += 1)}`;

export const textMessage = (text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'message',
  role: 'user',
  messageId: uniqueId(),
  parts: [{ kind: 'text', text }],
  ...extra,
});
