import { describe, expect, it } from 'vitest';
import type { LinkReport } from '../../src/domain/report';
import { reportOf } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/**
 * How the corpus scorer (/work/shared/corpora/score.mjs, `adaptReport`) reads a message-flow row: these
 * regexes are copied from it. A flow matches a ground-truth flow by its routing key (`key`) or its queue
 * (`queue`); a row whose name neither yields is a miss and a false positive at once (ADR 0072).
 */
function scored(row: { calls: string; servedBy: string }): { flow: boolean; key: string; queue: string } {
  const tick = (s: string, re: RegExp): string | undefined => re.exec(s)?.[1];
  const rest = /^\S+ \S+?:\d+(?:\s+(.*))?$/.exec(row.servedBy.trim())?.[1] ?? '';
  const flow = /^(publish|produce|send)\b/i.test(row.calls) || /\bconsume (queue|kafka topic)\b/i.test(row.servedBy);
  const topic = tick(row.calls, /Kafka topic `([^`]*)`/i) ?? tick(rest, /Kafka topic `([^`]*)`/i);
  const dq = tick(row.calls, /to queue `([^`]*)`/);
  const key = topic ?? dq ?? tick(row.calls, /\/ `([^`]*)`/) ?? '';
  const queue = tick(rest, /consume (?:queue|Kafka topic) `([^`]*)`/i) ?? topic ?? dq ?? '';
  return { flow, key, queue };
}

const flows = (r: LinkReport) => r.table.filter((t) => scored(t).flow);

/** One producer service and one consumer service per broker, each naming `orders` (or a task/actor/class). */
const APPS: Record<string, { app: Record<string, Record<string, string>>; key: string; queue: string }> = {
  sqs: {
    app: {
      shop: {
        'send.py': lines(
          'import boto3',
          "sqs = boto3.client('sqs')",
          "sqs.send_message(QueueUrl='https://sqs.eu-west-1.amazonaws.com/123456789012/orders', MessageBody='x')",
        ),
      },
      fulfil: {
        'recv.py': lines(
          'import boto3',
          "sqs = boto3.client('sqs')",
          "sqs.receive_message(QueueUrl='https://sqs.eu-west-1.amazonaws.com/123456789012/orders')",
        ),
      },
    },
    key: 'orders',
    queue: 'orders',
  },
  bullmq: {
    app: {
      shop: {
        'src/q.ts': lines(
          "import { Queue } from 'bullmq';",
          "const q = new Queue('orders', { connection });",
          "export const add = () => q.add('order', {});",
        ),
      },
      jobs: {
        'src/w.ts': lines("import { Worker } from 'bullmq';", "new Worker('orders', async () => {}, { connection });"),
      },
    },
    key: 'orders',
    queue: 'orders',
  },
  rq: {
    app: {
      shop: {
        'app.py': lines('from rq import Queue', "q = Queue('orders', connection=r)", 'q.enqueue(work, 1)'),
      },
      worker: { Dockerfile: lines('FROM python:3.12', 'CMD ["rq", "worker", "orders"]') },
    },
    key: 'orders',
    queue: 'orders',
  },
  celery: {
    app: {
      shop: {
        'views.py': lines('from celery import Celery', "app = Celery('shop')", "app.send_task('orders.charge')"),
      },
      worker: {
        'tasks.py': lines(
          'from celery import Celery',
          "app = Celery('worker')",
          "@app.task(name='orders.charge')",
          'def charge():',
          '    pass',
        ),
      },
    },
    // Celery's default queue (and its direct exchange and routing key) is `celery`; the task name travels in the message.
    key: 'orders.charge',
    queue: 'celery',
  },
  dramatiq: {
    app: {
      shop: {
        'jobs.py': lines(
          'import dramatiq',
          'from dramatiq import Message',
          "broker.enqueue(Message(queue_name='orders', actor_name='charge', args=(), kwargs={}, options={}))",
        ),
      },
      worker: {
        'actors.py': lines('import dramatiq', "@dramatiq.actor(queue_name='orders')", 'def charge():', '    pass'),
      },
    },
    key: 'charge',
    queue: 'orders',
  },
  sns: {
    app: {
      shop: {
        'pub.py': lines(
          'import boto3',
          "sns = boto3.client('sns')",
          "sns.publish(TopicArn='arn:aws:sns:eu-west-1:123456789012:orders', Message='x')",
        ),
      },
      notify: {
        'Listener.java': lines(
          'class Listener {',
          '  void sub() { sns.subscribe(SubscribeRequest.builder().topicArn("arn:aws:sns:eu-west-1:123456789012:orders").build()); }',
          '}',
        ),
      },
    },
    key: 'orders',
    queue: '',
  },
  redis: {
    app: {
      shop: {
        'src/pub.ts': lines("import Redis from 'ioredis';", 'const r = new Redis();', "r.publish('orders', '1');"),
      },
      billing: {
        'sub.py': lines('import redis', "p = redis.Redis(host='redis').pubsub()", "p.subscribe('orders')"),
      },
    },
    key: 'orders',
    queue: '',
  },
  dapr: {
    app: {
      shop: {
        'index.js': lines(
          "const { DaprClient } = require('@dapr/dapr');",
          "client.pubsub.publish('pubsub', 'orders', {});",
        ),
      },
      billing: {
        'Handlers.cs': lines(
          'using Dapr;',
          'class Handlers {',
          '  [Topic("pubsub", "orders")]',
          '  public Task On(Evt e) => Task.CompletedTask;',
          '}',
        ),
      },
    },
    // The topic is what the broker behind the sidecar sees; the pubsub component is Dapr's own name.
    key: 'orders',
    queue: '',
  },
  sidekiq: {
    app: {
      web: { 'app/c.rb': lines('class C', '  def create', '    OrdersWorker.perform_async(1)', '  end', 'end') },
      billing: {
        'app/workers/orders_worker.rb': lines(
          'class OrdersWorker',
          '  include Sidekiq::Worker',
          '  def perform(id); end',
          'end',
        ),
      },
    },
    key: 'OrdersWorker',
    queue: '',
  },
  laravel: {
    app: {
      shop: {
        '.env': lines('QUEUE_CONNECTION=redis'),
        'app/Jobs/OrderPlaced.php': lines(
          '<?php',
          'namespace App\\Jobs;',
          'class OrderPlaced implements \\Illuminate\\Contracts\\Queue\\ShouldQueue',
          '{',
          '    public function handle() {}',
          '}',
        ),
        'app/C.php': lines('<?php', 'use App\\Jobs\\OrderPlaced;', 'OrderPlaced::dispatch(1);'),
      },
      warehouse: {
        '.env': lines('QUEUE_CONNECTION=redis'),
        'app/Jobs/OrderPlaced.php': lines(
          '<?php',
          'namespace App\\Jobs;',
          'class OrderPlaced implements \\Illuminate\\Contracts\\Queue\\ShouldQueue',
          '{',
          '    public function handle() {}',
          '}',
        ),
      },
    },
    // The job's class travels in the payload; the queue (the connection's, `default`) is what the broker sees.
    key: 'App\\Jobs\\OrderPlaced',
    queue: 'default',
  },
};

describe('named-channel rows carry the name the broker sees, in the form the scorer reads (ADR 0072)', () => {
  for (const [broker, { app, key, queue }] of Object.entries(APPS)) {
    it(`${broker}: one flow whose key is \`${key}\`${queue ? ` and queue \`${queue}\`` : ''}`, async () => {
      const r = await reportOf(app);
      const found = flows(r);
      expect(found.map((t) => `${t.calls} | ${t.servedBy}`)).toHaveLength(1);
      expect(scored(found[0]!)).toEqual({ flow: true, key, queue });
    });
  }

  it('a subscription to two patterns the publish matches (one line) is one row per (call site, consumer)', async () => {
    const r = await reportOf({
      shop: {
        'src/pub.ts': lines(
          "import Redis from 'ioredis';",
          'const r = new Redis();',
          "r.publish('orders.created', '1');",
        ),
      },
      billing: {
        'main.go': lines(
          'package main',
          'import "github.com/redis/go-redis/v9"',
          'func run(ctx context.Context, rdb *redis.Client) {',
          '	_ = rdb.PSubscribe(ctx, "orders.*", "orders.c*")',
          '}',
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} | ${t.servedBy.split(' consume')[0]}`)).toEqual([
      'shop src/pub.ts:3 | billing main.go:4',
    ]);
  });
});
