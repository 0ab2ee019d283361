/** One push delivery as `GET /api/v1/agents/{agentId}/push-deliveries` answers it. */
export interface PushDelivery {
  taskId: string;
  seq: number;
  configId: string;
  outcome: string;
  httpStatus: number | null;
  attempts: number;
  error: string | null;
  target: { url: string; host: string };
  startedAt: string | null;
  lastAttemptAt: string | null;
  finishedAt: string | null;
}

export interface PushDeliveryPage {
  agentId: string;
  deliveries: PushDelivery[];
  nextPageToken: string | null;
}

const OUTCOMES: Readonly<Record<string, { label: string; tone: 'ok' | 'error' | 'busy' }>> = {
  delivered: { label: 'Delivered', tone: 'ok' },
  pending: { label: 'In progress', tone: 'busy' },
  rejected: { label: 'Rejected by the receiver', tone: 'error' },
  refused: { label: 'Refused (not a public https address)', tone: 'error' },
  exhausted: { label: 'Failed after retries', tone: 'error' },
};

/** The outcome as the log shows it, with its tone (colour class); an unknown outcome is shown as given. */
export function outcomeOf(outcome: string): { label: string; tone: 'ok' | 'error' | 'busy' } {
  return Object.hasOwn(OUTCOMES, outcome) ? OUTCOMES[outcome]! : { label: outcome, tone: 'busy' };
}

/** The HTTP status cell: the status, or why there was none. */
export function statusText(d: Pick<PushDelivery, 'httpStatus' | 'error'>): string {
  if (d.httpStatus !== null) return String(d.httpStatus);
  return d.error ? `no answer: ${d.error}` : 'no answer';
}

/** When: the last attempt (else the start), as `YYYY-MM-DD HH:MM:SS` UTC. */
export function whenText(d: Pick<PushDelivery, 'startedAt' | 'lastAttemptAt'>): string {
  const at = d.lastAttemptAt ?? d.startedAt;
  return at ? `${at.slice(0, 19).replace('T', ' ')} UTC` : '';
}

/** Attempts, with the word: `1 attempt`, `4 attempts`. */
export function attemptsText(n: number): string {
  return `${n} attempt${n === 1 ? '' : 's'}`;
}
