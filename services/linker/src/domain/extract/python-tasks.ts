import { EXPR, type Emit, each, valueOf } from './channels';

/**
 * Python task queues beyond Celery's `send_task` (ADR 0039's named channels, read from the text of the
 * files that mention the library), as their broker sees them:
 *
 * - Celery `task.delay(…)`/`task.apply_async(…)` of a task imported from another module
 *   (`from worker.tasks import charge`): the task named by its module path, `worker.tasks.charge`, the name an
 *   unnamed `@app.task` of `worker/tasks.py` has.
 * - Dramatiq: `@dramatiq.actor(actor_name=…, queue_name=…)` consumes its actor name (the function's name by
 *   default); `broker.enqueue(Message(queue_name=…, actor_name=…))` and `actor.send(…)` of an actor the file
 *   declares or imports produce it. The queue is shown, as Celery's.
 * - RQ: `Queue('high', connection=r).enqueue(…)` produces the queue `high` (`default` unnamed); a
 *   `Worker(['high', q])` and the `rq worker high default` command (Dockerfile, compose `command:`, Procfile,
 *   shell script) consume it: RQ's worker runs any job of the queues it listens to.
 */

/** Names a file imports from another module (`from a.b import c, d as e`), with the module path. */
function fromImports(text: string, path: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = path.split('/').slice(0, -1);
  for (const m of text.matchAll(/^from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]{0,2000}\)|[^\n#]+)/gm)) {
    const dots = m[1]!.length;
    // `from .tasks import x` in worker/api.py: worker.tasks (a package's relative module, one folder up per extra dot).
    const base = dots === 0 ? [] : dir.slice(0, Math.max(0, dir.length - (dots - 1)));
    const module = [...base, ...(m[2] ? m[2].split('.') : [])].join('.');
    if (!module) continue;
    for (const item of m[3]!.replace(/[()\\]/g, ' ').split(',')) {
      const w = /^\s*(\w+)(?:\s+as\s+(\w+))?\s*$/.exec(item);
      if (w) out.set(w[2] ?? w[1]!, `${module}.${w[1]!}`);
    }
  }
  return out;
}

function celeryDelays(text: string, path: string, emit: Emit): void {
  if (!/\.(?:delay|apply_async)\(/.test(text)) return;
  const imported = fromImports(text, path);
  each(/\b(\w+)\s*\.\s*(?:delay|apply_async)\s*\(/g, text, (m) => {
    const task = imported.get(m[1]!);
    if (task) emit('publish', 'celery', task, m.index);
  });
}

function dramatiq(text: string, path: string, emit: Emit): void {
  if (!/\bdramatiq\b/.test(text)) return;
  const actors = new Map<string, string>();
  const decorated =
    /@(?:dramatiq\.)?actor\b(\([^()]{0,2000}\))?[ \t]*\r?\n(?:[ \t]*(?:@[^\r\n]*)?\r?\n){0,20}[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)/g;
  each(decorated, text, (m) => {
    const named = m[1] ? new RegExp(String.raw`\bactor_name\s*=\s*${EXPR}`).exec(m[1]) : null;
    const name = named ? valueOf(named[1]!, text) : m[2]!;
    // `queue_name=`: the queue the actor's messages go to (Dramatiq's `default` otherwise).
    const queue = m[1] ? new RegExp(String.raw`\bqueue_name\s*=\s*${EXPR}`).exec(m[1]) : null;
    actors.set(m[2]!, name);
    emit('consume', 'dramatiq', name, m.index, queue ? valueOf(queue[1]!, text) : undefined);
  });
  // Message(queue_name="q", actor_name="a", args=…, kwargs=…, options=…): sent to another service's actor by name.
  each(/\bMessage\(((?:[^()]|\([^()]*\)){0,2000})\)/g, text, (m) => {
    const actor = new RegExp(String.raw`\bactor_name\s*=\s*${EXPR}`).exec(m[1]!)?.[1];
    const queue = new RegExp(String.raw`\bqueue_name\s*=\s*${EXPR}`).exec(m[1]!)?.[1];
    if (actor) emit('publish', 'dramatiq', valueOf(actor, text), m.index, queue ? valueOf(queue, text) : 'default');
  });
  const imported = fromImports(text, path);
  each(/\b(\w+)\s*\.\s*(?:send|send_with_options)\s*\(/g, text, (m) => {
    // An imported actor keeps its function's name (Dramatiq's default actor name).
    const name = actors.get(m[1]!) ?? (imported.has(m[1]!) ? m[1]! : undefined);
    if (name) emit('publish', 'dramatiq', name, m.index);
  });
}

function rq(text: string, emit: Emit): void {
  if (!/\brq\b/.test(text)) return;
  const queues = new Map<string, string>();
  const queueName = (args: string): string => {
    const first = new RegExp(String.raw`^\s*${EXPR}`).exec(args)?.[1]?.trim();
    const named = new RegExp(String.raw`\bname\s*=\s*${EXPR}`).exec(args)?.[1];
    if (named) return valueOf(named, text);
    return first && !/^\w+\s*=/.test(first) ? valueOf(first, text) : 'default';
  };
  each(/\b(?:self\.)?(\w+)\s*=\s*(?:rq\.)?Queue\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g, text, (m) => {
    queues.set(m[1]!, queueName(m[2]!));
  });
  const ENQUEUE = String.raw`\.\s*enqueue(?:_call|_in|_at|_many)?\s*\(`;
  each(new RegExp(String.raw`\b(?:self\.)?(\w+)\s*${ENQUEUE}`, 'g'), text, (m) => {
    const name = queues.get(m[1]!);
    if (name !== undefined) emit('publish', 'rq', name, m.index);
  });
  each(new RegExp(String.raw`\bQueue\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*${ENQUEUE}`, 'g'), text, (m) =>
    emit('publish', 'rq', queueName(m[1]!), m.index),
  );
  // Worker(['high', 'default'], connection=r), Worker([q1, q2]), SimpleWorker(queues=[…])
  each(/\b(?:Simple)?Worker\(\s*(?:queues\s*=\s*)?\[([^\]]*)\]/g, text, (m) => {
    for (const item of m[1]!.split(',')) {
      const e = item.trim();
      if (!e) continue;
      const v = queues.get(e.replace(/^self\./, '')) ?? valueOf(e, text);
      emit('consume', 'rq', v, m.index);
    }
  });
  rqCommands(text, emit);
}

/** `rq worker` options that take a value. */
const RQ_VALUE_OPTIONS = new Set(
  '-u --url -c --config -n --name -w --worker-class -j --job-class --queue-class --connection-class -P --path --results-ttl --worker-ttl --job-monitoring-interval --logging_level --logging-level --log-format --date-format -S --serializer --exception-handler --pid --max-jobs --max-idle-time --dequeue-strategy'.split(
    ' ',
  ),
);

/** `rq worker high default` in a command (a Dockerfile, compose `command:`, a Procfile, a script): the queues it consumes. */
export function rqCommands(text: string, emit: Emit): void {
  if (!/\brq\b/.test(text)) return;
  each(/\brq["',\s]+worker\b([^\n]*)/g, text, (m) => {
    const words = m[1]!
      .replace(/[[\]",']/g, ' ')
      .split(/\s+/)
      .filter(Boolean);
    const names: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (/^[;&|#]/.test(w)) break;
      if (w.startsWith('-')) {
        if (RQ_VALUE_OPTIONS.has(w)) i++;
        continue;
      }
      if (/^[\w.:-]+$/.test(w)) names.push(w);
    }
    for (const n of names.length ? names : ['default']) emit('consume', 'rq', n, m.index);
  });
}

/** The task-queue facts of one Python file. */
export function pythonTasks(text: string, path: string, emit: Emit): void {
  celeryDelays(text, path, emit);
  dramatiq(text, path, emit);
  rq(text, emit);
}
