import { describe, expect, it } from 'vitest';
import { endpointName } from '../../src/domain/bus';
import { extractChannels, globMatches, starGlobMatches, subjectMatches } from '../../src/domain/extract/channels';
import { Sink } from '../../src/domain/extract/common';
import { emptyFacts } from '../../src/domain/model';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('named-channel message libraries (ADR 0039)', () => {
  it('Celery: send_task(name) reaches @app.task(name=…) and an unnamed task by its module path; routing options do not change the name', async () => {
    const r = await reportOf({
      web: {
        'app/views.py': lines(
          'from celery import Celery',
          "celery = Celery('web', broker='redis://redis:6379/0')",
          'def order(request):',
          "    celery.send_task('orders.charge', args=[1], queue='payments')",
          "    celery.send_task('worker.tasks.ship', args=[1])",
          "    celery.send_task('nobody.home')",
        ),
      },
      worker: {
        'worker/tasks.py': lines(
          'from celery import Celery, shared_task',
          "app = Celery('worker')",
          "@app.task(name='orders.charge', bind=True)",
          'def charge(self, order_id):',
          '    pass',
          '@shared_task',
          'def ship(order_id):',
          '    pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/views.py:4 | publish Celery / `orders.charge` (queue `payments`) | worker worker/tasks.py:3 consume queue `payments` (Celery task `orders.charge`)',
      'web app/views.py:5 | publish Celery / `worker.tasks.ship` (queue `celery`) | worker worker/tasks.py:6 consume queue `celery` (Celery task `worker.tasks.ship`)',
    ]);
    expect(gaps(r)).toEqual(['publisher web app/views.py:6 no consumer of Celery task `nobody.home`']);
  });

  it('BullMQ and Bull: queue.add on a Queue named by a constant or the environment, new Worker, queue.process, NestJS @Processor/@InjectQueue', async () => {
    const r = await reportOf({
      api: {
        'src/queue.ts': lines(
          "import { Queue } from 'bullmq';",
          "const EMAILS = 'emails';",
          'const emails = new Queue(EMAILS, { connection });',
          'export async function welcome(to: string) {',
          "  await emails.add('welcome', { to });",
          '}',
          "export const reports = new Queue(process.env.REPORTS_QUEUE || 'reports', { connection });",
        ),
        'src/billing.service.ts': lines(
          "import { InjectQueue } from '@nestjs/bullmq';",
          'export class BillingService {',
          "  constructor(@InjectQueue('invoices') private readonly invoices: Queue) {}",
          "  bill() { return this.invoices.add('invoice', {}); }",
          '}',
        ),
      },
      jobs: {
        '.env': 'REPORTS_QUEUE=reports\n',
        'src/worker.ts': lines(
          "import { Worker } from 'bullmq';",
          "new Worker('emails', async (job) => send(job.data), { connection });",
          'new Worker(process.env.REPORTS_QUEUE!, async (job) => build(job.data), { connection });',
        ),
        'src/invoices.processor.ts': lines(
          "import { Processor, WorkerHost } from '@nestjs/bullmq';",
          "@Processor('invoices')",
          'export class InvoicesProcessor extends WorkerHost {}',
        ),
        'legacy.js': lines(
          "const Queue = require('bull');",
          "const thumbs = new Queue('thumbnails', 'redis://redis:6379');",
          'thumbs.process(async (job) => resize(job.data));',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'api src/billing.service.ts:3 | publish to queue `invoices` (Bull) | jobs src/invoices.processor.ts:2 consume queue `invoices` (Bull)',
      'api src/queue.ts:5 | publish to queue `emails` (Bull) | jobs src/worker.ts:2 consume queue `emails` (Bull)',
      'api src/queue.ts:7 | publish to queue `reports` (Bull) | jobs src/worker.ts:3 consume queue `reports` (Bull)',
    ]);
    expect(gaps(r)).toEqual(['consumer jobs legacy.js:3 no producer for Bull queue `thumbnails`']);
  });

  it('NATS: publish/request reach subscriptions whose subject (or wildcard) matches, in Go, JS and Python; JetStream the same', async () => {
    const r = await reportOf({
      orders: {
        'main.go': lines(
          'package main',
          'import "github.com/nats-io/nats.go"',
          'func run(nc *nats.Conn, js nats.JetStreamContext) {',
          '\tnc.Publish("orders.created", data)',
          '\tjs.Publish(os.Getenv("AUDIT_SUBJECT"), data)',
          '\tnc.Request("pricing.quote", req, time.Second)',
          '}',
        ),
      },
      shipping: {
        'index.js': lines(
          "const { connect } = require('nats');",
          'const nc = await connect({ servers: process.env.NATS_URL });',
          "const sub = nc.subscribe('orders.*');",
          "nc.subscribe('audit.>', { queue: 'auditors' });",
        ),
      },
      pricing: {
        'svc.py': lines(
          'import nats',
          'async def main():',
          '    nc = await nats.connect("nats://nats:4222")',
          '    await nc.subscribe("pricing.quote", cb=handler)',
        ),
        'docker-compose.yml': lines(
          'services:',
          '  orders:',
          '    image: orders',
          '    environment:',
          '      AUDIT_SUBJECT: audit.orders.v1',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders main.go:4 | publish NATS / `orders.created` | shipping index.js:3 consume NATS subject `orders.*`',
      'orders main.go:5 | publish NATS / `audit.orders.v1` | shipping index.js:4 consume NATS subject `audit.>` (queue group `auditors`)',
      'orders main.go:6 | publish NATS / `pricing.quote` | pricing svc.py:4 consume NATS subject `pricing.quote`',
    ]);
    expect(subjectMatches('a.*', 'a.b.c')).toBe(false);
    expect(subjectMatches('a.>', 'a')).toBe(false);
  });

  it('SQS and SNS: queue URLs and topic ARNs from the environment compared by their name; sqs-consumer, boto3, Spring @SqsListener', async () => {
    const r = await reportOf({
      checkout: {
        'src/publish.ts': lines(
          "import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';",
          "import { SNSClient, PublishCommand } from '@aws-sdk/client-sns';",
          'export async function done(order) {',
          '  await sqs.send(new SendMessageCommand({ QueueUrl: process.env.ORDERS_QUEUE_URL, MessageBody: JSON.stringify(order) }));',
          "  await sns.send(new PublishCommand({ TopicArn: 'arn:aws:sns:eu-west-1:123456789012:order-events', Message: 'x' }));",
          '}',
        ),
        '.env': 'ORDERS_QUEUE_URL=https://sqs.eu-west-1.amazonaws.com/123456789012/orders\n',
      },
      fulfil: {
        'worker.py': lines(
          'import boto3, os',
          "sqs = boto3.client('sqs')",
          "QUEUE_URL = os.environ['QUEUE_URL']",
          'while True:',
          '    msgs = sqs.receive_message(QueueUrl=QUEUE_URL, WaitTimeSeconds=20)',
        ),
        '.env': 'QUEUE_URL=http://localstack:4566/000000000000/orders\n',
      },
      notify: {
        'src/main/java/n/Listener.java': lines(
          'package n;',
          'class Listener {',
          '  @SqsListener("emails")',
          '  void on(String m) {}',
          '  void sub() { sns.subscribe(SubscribeRequest.builder().topicArn("arn:aws:sns:eu-west-1:123456789012:order-events").build()); }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'checkout src/publish.ts:4 | publish to queue `orders` (SQS) | fulfil worker.py:5 consume queue `orders` (SQS)',
      'checkout src/publish.ts:5 | publish SNS / `order-events` | notify src/main/java/n/Listener.java:5 consume SNS topic `order-events`',
    ]);
    expect(gaps(r)).toEqual(['consumer notify src/main/java/n/Listener.java:3 no producer for SQS queue `emails`']);
  });

  it('Dapr pub/sub: PublishEventAsync / publish_event / the sidecar URL reach [Topic], /dapr/subscribe lists and Subscription YAML by pubsub and topic', async () => {
    const r = await reportOf({
      basket: {
        'Api/Checkout.cs': lines(
          'using Dapr.Client;',
          'class Checkout {',
          '  async Task Run(DaprClient dapr) {',
          '    await dapr.PublishEventAsync("pubsub", "basket.checkout", evt);',
          '  }',
          '}',
        ),
        'notify.py': lines(
          'from dapr.clients import DaprClient',
          'with DaprClient() as c:',
          "    c.publish_event(pubsub_name='pubsub', topic_name='basket.notify', data='{}')",
          "requests.post('http://localhost:3500/v1.0/publish/pubsub/basket.audit', json={})",
        ),
      },
      ordering: {
        'Api/Handlers.cs': lines(
          'using Dapr;',
          'class Handlers {',
          '  [Topic("pubsub", "basket.checkout")]',
          '  public Task On(Evt e) => Task.CompletedTask;',
          '}',
        ),
        'server.js': lines(
          "app.get('/dapr/subscribe', (req, res) => res.json([",
          "  { pubsubname: 'pubsub', topic: 'basket.notify', route: 'notify' },",
          ']));',
        ),
        'components/audit.yaml': lines(
          'apiVersion: dapr.io/v2alpha1',
          'kind: Subscription',
          'metadata:',
          '  name: audit',
          'spec:',
          '  topic: basket.audit',
          '  routes:',
          '    default: /audit',
          '  pubsubname: pubsub',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'basket Api/Checkout.cs:4 | publish Dapr / `basket.checkout` (pubsub `pubsub`) | ordering Api/Handlers.cs:3 consume Dapr topic `basket.checkout` (pubsub `pubsub`)',
      'basket notify.py:3 | publish Dapr / `basket.notify` (pubsub `pubsub`) | ordering server.js:2 consume Dapr topic `basket.notify` (pubsub `pubsub`)',
      'basket notify.py:4 | publish Dapr / `basket.audit` (pubsub `pubsub`) | ordering components/audit.yaml:6 consume Dapr topic `basket.audit` (pubsub `pubsub`)',
    ]);
  });

  it('Dapr: the sidecar publish URL built from constants is a publish, not an unresolved call; Go PublishEvent(context.Background(), …); a programmatic subscription in C#', async () => {
    const r = await reportOf({
      checkout: {
        'index.js': lines(
          "const axios = require('axios');",
          "const DAPR_HOST = process.env.DAPR_HOST || 'http://localhost';",
          "const PUBSUB_NAME = 'orderpubsub';",
          "const PUBSUB_TOPIC = 'orders';",
          'await axios.post(`${DAPR_HOST}:3500/v1.0/publish/${PUBSUB_NAME}/${PUBSUB_TOPIC}`, order);',
        ),
        'app.go': lines(
          'package main',
          'import dapr "github.com/dapr/go-sdk/client"',
          'const (',
          '\tpubsubComponentName = "orderpubsub"',
          '\tpubsubTopic         = "payments"',
          ')',
          'func main() { client.PublishEvent(context.Background(), pubsubComponentName, pubsubTopic, []byte(order)) }',
        ),
      },
      processor: {
        'Program.cs': lines(
          'app.MapGet("/dapr/subscribe", () => {',
          '    var sub = new DaprSubscription(PubsubName: "orderpubsub", Topic: "orders", Route: "orders");',
          '    return new[] { sub };',
          '});',
          'app.MapPost("/payments", [Topic("orderpubsub", "payments")] (Order o) => Results.Ok());',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'checkout app.go:7 | publish Dapr / `payments` (pubsub `orderpubsub`) | processor Program.cs:5 consume Dapr topic `payments` (pubsub `orderpubsub`)',
      'checkout index.js:5 | publish Dapr / `orders` (pubsub `orderpubsub`) | processor Program.cs:2 consume Dapr topic `orders` (pubsub `orderpubsub`)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('Sidekiq: perform_async and Sidekiq::Client.push by class name reach the worker class of another repository', async () => {
    const r = await reportOf({
      web: {
        'app/controllers/orders_controller.rb': lines(
          'class OrdersController < ApplicationController',
          '  def create',
          "    Sidekiq::Client.push('class' => 'ChargeWorker', 'queue' => 'billing', 'args' => [1])",
          '    Billing::ReceiptWorker.set(queue: :mail).perform_async(1)',
          '  end',
          'end',
        ),
      },
      billing: {
        'app/workers/charge_worker.rb': lines(
          'class ChargeWorker',
          '  include Sidekiq::Worker',
          "  sidekiq_options queue: 'billing'",
          '  def perform(id); end',
          'end',
        ),
        'app/workers/receipt_worker.rb': lines(
          'module Billing',
          '  class ReceiptWorker',
          '    include Sidekiq::Job',
          '    def perform(id); end',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/controllers/orders_controller.rb:3 | publish Sidekiq / `ChargeWorker` (queue `billing`) | billing app/workers/charge_worker.rb:1 consume queue `billing` (Sidekiq worker `ChargeWorker`)',
      'web app/controllers/orders_controller.rb:4 | publish Sidekiq / `ReceiptWorker` (queue `mail`) | billing app/workers/receipt_worker.rb:2 consume queue `mail` (Sidekiq worker `ReceiptWorker`)',
    ]);
  });

  it('Sidekiq queues: perform_async goes to the queue `sidekiq_options queue:` of the worker class declares, on the broker both sides share', async () => {
    const r = await reportOf({
      web: {
        'app/controllers/reports_controller.rb': lines(
          'class ReportsController < ApplicationController',
          '  def create',
          '    ReportWorker.perform_async(params[:id])',
          '    CleanupWorker.perform_in(5.minutes)',
          '  end',
          'end',
        ),
      },
      jobs: {
        'app/workers/report_worker.rb': lines(
          'class ReportWorker',
          '  include Sidekiq::Job',
          '  sidekiq_options queue: :critical, retry: 3',
          '  def perform(id); end',
          'end',
          'class CleanupWorker',
          '  include Sidekiq::Job',
          '  def perform; end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/controllers/reports_controller.rb:3 | publish Sidekiq / `ReportWorker` (queue `critical`) | jobs app/workers/report_worker.rb:1 consume queue `critical` (Sidekiq worker `ReportWorker`)',
      'web app/controllers/reports_controller.rb:4 | publish Sidekiq / `CleanupWorker` | jobs app/workers/report_worker.rb:6 consume Sidekiq worker `CleanupWorker`',
    ]);
  });

  it('Sidekiq::Client: a push hash over lines or with the class itself, enqueue / enqueue_to / enqueue_in by class, reach the worker of another repository', async () => {
    const r = await reportOf({
      web: {
        'app/services/orders.rb': lines(
          'class Orders',
          '  def create(id)',
          '    Sidekiq::Client.push(',
          "      'class' => 'ChargeJob',",
          "      'queue' => 'payments',",
          "      'args' => [id]",
          '    )',
          "    Sidekiq::Client.enqueue_to('invoices', InvoiceJob, id)",
          '    Sidekiq::Client.enqueue(ReceiptJob, id)',
          "    Sidekiq::Client.push('class' => Billing::RefundJob, 'args' => [id])",
          '    Sidekiq::Client.enqueue_in(300, ReminderJob, id)',
          '  end',
          'end',
        ),
      },
      billing: {
        'app/workers/jobs.rb': lines(
          'class ChargeJob',
          '  include Sidekiq::Worker',
          '  def perform(id); end',
          'end',
          'class InvoiceJob',
          '  include Sidekiq::Job',
          '  def perform(id); end',
          'end',
          'class ReceiptJob',
          '  include Sidekiq::Job',
          "  sidekiq_options queue: 'mail'",
          '  def perform(id); end',
          'end',
          'module Billing',
          '  class RefundJob',
          '    include Sidekiq::Job',
          "    sidekiq_options queue: 'payments'",
          '    def perform(id); end',
          '  end',
          'end',
          'class ReminderJob',
          '  include Sidekiq::Job',
          "  sidekiq_options queue: 'mail'",
          '  def perform(id); end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/services/orders.rb:4 | publish Sidekiq / `ChargeJob` (queue `payments`) | billing app/workers/jobs.rb:1 consume queue `payments` (Sidekiq worker `ChargeJob`)',
      'web app/services/orders.rb:8 | publish Sidekiq / `InvoiceJob` (queue `invoices`) | billing app/workers/jobs.rb:5 consume queue `invoices` (Sidekiq worker `InvoiceJob`)',
      'web app/services/orders.rb:9 | publish Sidekiq / `ReceiptJob` (queue `mail`) | billing app/workers/jobs.rb:9 consume queue `mail` (Sidekiq worker `ReceiptJob`)',
      'web app/services/orders.rb:10 | publish Sidekiq / `RefundJob` (queue `payments`) | billing app/workers/jobs.rb:15 consume queue `payments` (Sidekiq worker `RefundJob`)',
      'web app/services/orders.rb:11 | publish Sidekiq / `ReminderJob` (queue `mail`) | billing app/workers/jobs.rb:21 consume queue `mail` (Sidekiq worker `ReminderJob`)',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('Redis pub/sub: publish(channel) reaches subscribe and PSUBSCRIBE patterns (globs) in JS, Python, Go, C#, Java and Ruby; a Dapr pubsub client and NATS are not Redis', async () => {
    const r = await reportOf({
      orders: {
        'src/events.ts': lines(
          "import Redis from 'ioredis';",
          'const pub = new Redis(process.env.REDIS_URL);',
          "const CHANNEL = 'orders.created';",
          'export const created = (o: unknown) => pub.publish(CHANNEL, JSON.stringify(o));',
          "export const cancelled = (o: unknown) => pub.publish('orders.cancelled', JSON.stringify(o));",
          "export const audit = (o: unknown) => pub.publish(process.env.AUDIT_CHANNEL || 'audit', JSON.stringify(o));",
          "export const nobody = () => pub.publish('inventory.reserved', '1');",
        ),
      },
      mailer: {
        'worker.py': lines(
          'import redis',
          "r = redis.Redis(host='redis')",
          'p = r.pubsub()',
          "p.psubscribe('orders.*')",
        ),
      },
      billing: {
        'main.go': lines(
          'package main',
          'import "github.com/redis/go-redis/v9"',
          'func run(ctx context.Context, rdb *redis.Client) {',
          '	sub := rdb.Subscribe(ctx, "orders.created", "orders.refunded")',
          '	_ = sub',
          '}',
        ),
      },
      audit: {
        'Audit/Listener.cs': lines(
          'using StackExchange.Redis;',
          'class Listener {',
          '  void Start(ConnectionMultiplexer redis) {',
          '    var sub = redis.GetSubscriber();',
          '    sub.Subscribe(RedisChannel.Literal("audit"), (ch, msg) => { });',
          '  }',
          '}',
        ),
      },
      reports: {
        'src/main/java/r/RedisConfig.java': lines(
          'package r;',
          'class RedisConfig {',
          '  RedisMessageListenerContainer container(RedisConnectionFactory f, MessageListenerAdapter a) {',
          '    RedisMessageListenerContainer c = new RedisMessageListenerContainer();',
          '    c.addMessageListener(a, new PatternTopic("orders.cancel*"));',
          '    return c;',
          '  }',
          '}',
        ),
        'app/sub.rb': lines(
          "require 'redis'",
          "Redis.new.subscribe('orders.created') do |on|",
          '  on.message { |ch, m| puts m }',
          'end',
        ),
      },
      dapr: {
        'index.js': lines(
          "const { DaprClient } = require('@dapr/dapr'); // redis is the component",
          "client.pubsub.publish('pubsub', 'orders.created', {});",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/events.ts:4 | publish Redis / `orders.created` | billing main.go:4 consume Redis channel `orders.created`',
      'orders src/events.ts:4 | publish Redis / `orders.created` | mailer worker.py:4 consume Redis channel `orders.*`',
      'orders src/events.ts:4 | publish Redis / `orders.created` | reports app/sub.rb:2 consume Redis channel `orders.created`',
      'orders src/events.ts:5 | publish Redis / `orders.cancelled` | mailer worker.py:4 consume Redis channel `orders.*`',
      'orders src/events.ts:5 | publish Redis / `orders.cancelled` | reports src/main/java/r/RedisConfig.java:5 consume Redis channel `orders.cancel*`',
      'orders src/events.ts:6 | publish Redis / `audit` | audit Audit/Listener.cs:5 consume Redis channel `audit`',
    ]);
    expect(gaps(r)).toEqual([
      'consumer billing main.go:4 no producer for Redis channel `orders.refunded`',
      'publisher dapr index.js:2 no consumer of Dapr topic `pubsub/orders.created`',
      'publisher orders src/events.ts:7 no consumer of Redis channel `inventory.reserved`',
    ]);
    expect(globMatches('orders.*', 'orders.a.b')).toBe(true);
    expect(globMatches('h?llo', 'hallo')).toBe(true);
    expect(globMatches('h[ae]llo', 'hillo')).toBe(false);
    expect(globMatches('a\\*', 'a*')).toBe(true);
    expect(globMatches('a\\*', 'ab')).toBe(false);
  });
});

describe('glob patterns read from a repository (review25)', () => {
  it('a PSUBSCRIBE pattern or Celery route of many `*` matches in linear time; a reversed class range does not throw', () => {
    const pattern = '*a'.repeat(12) + 'b'; // as a regular expression: minutes against 40 characters
    const channel = 'a'.repeat(40);
    const started = performance.now();
    expect(globMatches(pattern, channel)).toBe(false);
    expect(globMatches(pattern, channel + 'b')).toBe(true);
    expect(starGlobMatches(pattern, channel)).toBe(false);
    expect(starGlobMatches(pattern, channel + 'b')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
    // Redis takes a reversed range as the range; a regular expression threw "Range out of order".
    expect(globMatches('[z-a]', 'x')).toBe(true);
    expect(globMatches('h[^ae]llo', 'hillo')).toBe(true);
    expect(globMatches('h[^ae]llo', 'hallo')).toBe(false);
    expect(globMatches('a[b', 'a[b')).toBe(true); // an unclosed class is a literal
    expect(globMatches('a*', 'a\nb')).toBe(true);
    expect(starGlobMatches('proj.tasks.*', 'proj.tasks.add')).toBe(true);
    expect(starGlobMatches('proj.tasks.*', 'proj.other.add')).toBe(false);
    expect(starGlobMatches('proj.?', 'proj.a')).toBe(false); // only `*` is special in a Celery route
  });
});

describe('channel rules on pathological files (review finding 2)', () => {
  it('a MiB of blank lines, stacked decorators, unclosed parentheses, quoted strings or spaces is scanned in linear time', () => {
    const MiB = 1 << 20;
    const files: Record<string, string> = {
      'blank.py': `@shared_task\n${'\n'.repeat(MiB)}x\n`,
      'decorators.py': `# shared_task\n${'@shared_task\n'.repeat(MiB / 16)}x\n`,
      'crlf.py': `# shared_task\n${'@app.task\r\n'.repeat(MiB / 16)}x\n`,
      'parens.py': `# shared_task\n${'@task('.repeat(MiB / 8)}\n`,
      'quotes.ts': `import 'bullmq';\n@InjectQueue(${"'a'".repeat(MiB / 4)}\n`,
      'spaces.ts': `import 'bullmq';\n@InjectQueue('a')${' '.repeat(MiB)}-\n`,
      // Redis pub/sub: a MiB identifier, a MiB of spaces and of dots before no `subscribe(`.
      'redis-id.js': `// redis\n${'a'.repeat(MiB)}.x\n`,
      'redis-spaces.js': `// redis\nx${' '.repeat(MiB)}.x\n`,
      'redis-dots.js': `// redis\n${'a.'.repeat(MiB / 2)}subscribe\n`,
    };
    const slow: string[] = [];
    for (const [path, text] of Object.entries(files)) {
      const facts = emptyFacts('repo');
      const started = performance.now();
      extractChannels(text, path, new Sink(facts));
      // Milliseconds now; the old expressions took minutes to hours on each (22 quoted strings alone: 90 s).
      if (performance.now() - started > 3_000) slow.push(path);
      expect(facts.consumes).toEqual([]);
    }
    expect(slow).toEqual([]);
  });

  it('the bounded forms still read blank lines and other decorators before def, CRLF, and spaced modifiers', async () => {
    const r = await reportOf({
      web: {
        'app/views.py': lines('from celery import Celery', "celery.send_task('orders.charge')"),
        'app/producer.ts': lines(
          "import { InjectQueue } from '@nestjs/bullmq';",
          'export class S {',
          "  constructor(@InjectQueue('invoices')  private  readonly invoices: Queue) {}",
          "  bill() { return this.invoices.add('invoice', {}); }",
          '}',
        ),
      },
      worker: {
        'worker/tasks.py':
          "from celery import Celery\r\n@app.task(name='orders.charge')\r\n\r\n@retry\r\nasync def charge():\r\n    pass\r\n",
        'src/invoices.processor.ts': lines("import { Processor } from '@nestjs/bullmq';", "@Processor('invoices')"),
      },
    });
    expect(rows(r)).toEqual([
      'web app/producer.ts:3 | publish to queue `invoices` (Bull) | worker src/invoices.processor.ts:2 consume queue `invoices` (Bull)',
      'web app/views.py:2 | publish Celery / `orders.charge` (queue `celery`) | worker worker/tasks.py:2 consume queue `celery` (Celery task `orders.charge`)',
    ]);
  });
});

describe('MassTransit naming', () => {
  it('the exchange is `Namespace:Type` of the contract declared in a shared library; queues follow the kebab-case formatter or an explicit ReceiveEndpoint', async () => {
    const r = await reportOf({
      contracts: {
        'Events/BasketCheckoutEvent.cs': lines(
          'namespace BuildingBlocks.Messaging.Events;',
          'public record BasketCheckoutEvent : IntegrationEvent { public string UserName { get; set; } }',
        ),
        'Events/OrderShipped.cs': lines('namespace Shop.Contracts', '{', '  public class OrderShipped { }', '}'),
      },
      basket: {
        'Checkout.cs': lines(
          'public class Checkout {',
          '  public async Task Run(IPublishEndpoint publishEndpoint) {',
          '    await publishEndpoint.Publish(new BasketCheckoutEvent { UserName = u });',
          '    await publishEndpoint.Publish<OrderShipped>(new { Id = 1 });',
          '  }',
          '}',
        ),
      },
      ordering: {
        'Program.cs': lines(
          'builder.Services.AddMassTransit(config => {',
          '  config.SetKebabCaseEndpointNameFormatter();',
          '  config.UsingRabbitMq((context, cfg) => {',
          '    cfg.ReceiveEndpoint("shipping-audit", e => e.ConfigureConsumer<ShippedAuditConsumer>(context));',
          '    cfg.ConfigureEndpoints(context);',
          '  });',
          '});',
        ),
        'BasketCheckoutEventHandler.cs': lines(
          'public class BasketCheckoutEventHandler : IConsumer<BasketCheckoutEvent> { }',
          'public class ShippedAuditConsumer : IConsumer<Shop.Contracts.OrderShipped> { }',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'basket Checkout.cs:3 | publish `BuildingBlocks.Messaging.Events:BasketCheckoutEvent` | ordering BasketCheckoutEventHandler.cs:1 consume queue `basket-checkout-event-handler`',
      'basket Checkout.cs:4 | publish `Shop.Contracts:OrderShipped` | ordering BasketCheckoutEventHandler.cs:2 consume queue `shipping-audit`',
    ]);
    expect(endpointName('SubmitOrderConsumer', 'KebabCase')).toBe('submit-order');
    expect(endpointName('SubmitOrderConsumer', undefined)).toBe('SubmitOrder');
    expect(endpointName('HTTPRequestConsumer', 'SnakeCase')).toBe('http_request');
  });
});

describe('C# class constants across sources', () => {
  it('ReceiveEndpoint(Constants.Queue, …) names the consumers’ queue with a const of a shared source; two values are none', async () => {
    const r = await reportOf({
      shared: {
        'Common/QueueNames.cs': lines(
          'namespace Shop.Common;',
          'public static class QueueNames {',
          '  public const string OrderPlaced = "order-placed-queue";',
          '  public static readonly string Audit = "audit-queue";',
          '  public const string Twice = "twice-a";',
          '}',
          'public class OrderPlaced { }',
          'public class OrderAudited { }',
          'public class OrderTwice { }',
        ),
        'Other/QueueNames.cs': lines(
          'namespace Shop.Other;',
          'public static class QueueNames { public const string Twice = "twice-b"; }',
        ),
      },
      orders: {
        'Checkout.cs': lines(
          'public class Checkout {',
          '  public async Task Run(IPublishEndpoint bus) {',
          '    await bus.Publish(new OrderPlaced());',
          '    await bus.Publish(new OrderAudited());',
          '    await bus.Publish(new OrderTwice());',
          '  }',
          '}',
        ),
      },
      billing: {
        'Program.cs': lines(
          'using Shop.Common;',
          'builder.Services.AddMassTransit(config => {',
          '  config.UsingRabbitMq((context, cfg) => {',
          '    cfg.ReceiveEndpoint(QueueNames.OrderPlaced, e => e.ConfigureConsumer<PlacedConsumer>(context));',
          '    cfg.ReceiveEndpoint(Shop.Common.QueueNames.Audit, e => { e.Consumer<AuditConsumer>(); });',
          '    cfg.ReceiveEndpoint(QueueNames.Twice, e => e.ConfigureConsumer<TwiceConsumer>(context));',
          '  });',
          '});',
        ),
        'Consumers.cs': lines(
          'public class PlacedConsumer : IConsumer<OrderPlaced> { }',
          'public class AuditConsumer : IConsumer<OrderAudited> { }',
          'public class TwiceConsumer : IConsumer<OrderTwice> { }',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders Checkout.cs:3 | publish `Shop.Common:OrderPlaced` | billing Consumers.cs:1 consume queue `order-placed-queue`',
      'orders Checkout.cs:4 | publish `Shop.Common:OrderAudited` | billing Consumers.cs:2 consume queue `audit-queue`',
    ]);
  });
});

describe('C# class constants in broker calls', () => {
  it('Confluent.Kafka and RabbitMQ.Client names given by a const of another source resolve when linking', async () => {
    const r = await reportOf({
      shared: {
        'Topics.cs': lines(
          'namespace Shop.Messaging;',
          'public static class Topics {',
          '  public const string Orders = "orders";',
          '  public const string Prefix = "shop.";',
          '}',
        ),
      },
      orders: {
        'Producer.cs': lines(
          'using Shop.Messaging;',
          'public class Producer {',
          '  public async Task Send(IProducer<string, string> producer, IModel channel) {',
          '    await producer.ProduceAsync(Topics.Orders, new Message<string, string> { Value = "x" });',
          '    channel.BasicPublish(exchange: "", routingKey: Topics.Prefix + "audit", body: body);',
          '  }',
          '}',
        ),
      },
      billing: {
        'Worker.cs': lines(
          'using Shop.Messaging;',
          'public class Worker {',
          '  public void Run(IConsumer<string, string> consumer, IModel channel) {',
          '    consumer.Subscribe(Topics.Orders);',
          '    channel.QueueDeclare(queue: Topics.Prefix + "audit", durable: true);',
          '    channel.BasicConsume(queue: Topics.Prefix + "audit", autoAck: true, consumer: c);',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders Producer.cs:4 | produce Kafka topic `orders` | billing Worker.cs:4 consume Kafka topic `orders`',
      'orders Producer.cs:5 | publish to queue `shop.audit` (default exchange) | billing Worker.cs:6 consume queue `shop.audit`',
    ]);
  });
});

describe('NServiceBus naming', () => {
  it('events go to the fanout exchange of the type’s full name, bound to the queue of each endpoint handling them; commands go to the endpoint RouteToEndpoint, SetDestination or Send(destination, …) names', async () => {
    const r = await reportOf({
      messages: {
        'Messages/Events.cs': lines(
          'namespace Shop.Messages;',
          'public class OrderPlaced : IEvent { public string OrderId { get; set; } }',
          'public class OrderBilled : IEvent { public string OrderId { get; set; } }',
          'public class PlaceOrder : ICommand { public string OrderId { get; set; } }',
          'public class CancelOrder : ICommand { public string OrderId { get; set; } }',
          'public class ShipOrder : ICommand { }',
        ),
      },
      clientui: {
        'ClientUI/Program.cs': lines(
          'using NServiceBus;',
          'var endpointConfiguration = new EndpointConfiguration("ClientUI");',
          'var transport = endpointConfiguration.UseTransport(new RabbitMQTransport(RoutingTopology.Conventional(QueueType.Quorum), "host=rabbitmq"));',
          'var routing = endpointConfiguration.UseTransport(transport);',
          'routing.RouteToEndpoint(typeof(PlaceOrder), "Sales");',
          'var endpoint = await Endpoint.Start(endpointConfiguration);',
          'await endpoint.Send(new PlaceOrder { OrderId = "1" });',
          'var options = new SendOptions();',
          'options.SetDestination("Sales");',
          'await endpoint.Send(new CancelOrder(), options);',
          'await endpoint.Send(new ShipOrder());',
        ),
      },
      sales: {
        'Sales/Program.cs': lines('using NServiceBus;', 'var cfg = new EndpointConfiguration("Sales");'),
        'Sales/PlaceOrderHandler.cs': lines(
          'using NServiceBus;',
          'public class PlaceOrderHandler : IHandleMessages<PlaceOrder>',
          '{',
          '    public Task Handle(PlaceOrder message, IMessageHandlerContext context)',
          '        => context.Publish(new OrderPlaced { OrderId = message.OrderId });',
          '}',
          'public class CancelOrderHandler : IHandleMessages<CancelOrder>',
          '{',
          '    public Task Handle(CancelOrder message, IMessageHandlerContext context) => Task.CompletedTask;',
          '}',
        ),
      },
      billing: {
        'Billing/Program.cs': lines('using NServiceBus;', 'var cfg = new EndpointConfiguration("Billing");'),
        'Billing/OrderPlacedHandler.cs': lines(
          'using NServiceBus;',
          'public class OrderPlacedHandler : IHandleMessages<OrderPlaced>',
          '{',
          '    public async Task Handle(OrderPlaced message, IMessageHandlerContext context)',
          '    {',
          '        await context.Publish<OrderBilled>(m => m.OrderId = message.OrderId);',
          '        await context.Send("Shipping", new ShipOrder());',
          '    }',
          '}',
        ),
      },
      shipping: {
        'Shipping/Program.cs': lines('using NServiceBus;', 'var cfg = new EndpointConfiguration("Shipping");'),
        'Shipping/Handlers.cs': lines(
          'using NServiceBus;',
          'public class ShippingPolicy : IHandleMessages<OrderPlaced>, IHandleMessages<OrderBilled>',
          '{',
          '    public Task Handle(OrderPlaced message, IMessageHandlerContext context) => Task.CompletedTask;',
          '    public Task Handle(OrderBilled message, IMessageHandlerContext context) => Task.CompletedTask;',
          '}',
          'public class ShipOrderHandler : IHandleMessages<ShipOrder>',
          '{',
          '    public Task Handle(ShipOrder message, IMessageHandlerContext context) => Task.CompletedTask;',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing Billing/OrderPlacedHandler.cs:6 | publish `Shop.Messages.OrderBilled` | shipping Shipping/Handlers.cs:2 consume queue `Shipping`',
      'billing Billing/OrderPlacedHandler.cs:7 | publish `Shipping` | shipping Shipping/Handlers.cs:7 consume queue `Shipping`',
      'clientui ClientUI/Program.cs:7 | publish `Sales` | sales Sales/PlaceOrderHandler.cs:2 consume queue `Sales`',
      'clientui ClientUI/Program.cs:10 | publish `Sales` | sales Sales/PlaceOrderHandler.cs:7 consume queue `Sales`',
      'sales Sales/PlaceOrderHandler.cs:5 | publish `Shop.Messages.OrderPlaced` | billing Billing/OrderPlacedHandler.cs:2 consume queue `Billing`',
      'sales Sales/PlaceOrderHandler.cs:5 | publish `Shop.Messages.OrderPlaced` | shipping Shipping/Handlers.cs:2 consume queue `Shipping`',
    ]);
    expect(r.table.find((t) => t.calls === 'publish `Shop.Messages.OrderPlaced`')?.match).toBe(
      'binding: fanout exchange `Shop.Messages.OrderPlaced` → queue `Billing`',
    );
    // A command with no route names no endpoint: the destination is a run-time value.
    expect(gaps(r)).toEqual([
      'publisher clientui ClientUI/Program.cs:11 dynamic key: the exchange is only known at run time, and a placeholder matches no exchange',
    ]);
  });
});

describe('gateways in configuration: Kong and Traefik', () => {
  it('kong.yml routes (strip_path by default, the service path in front, strip_path: false keeps the prefix); Traefik file routers with stripPrefix; Traefik compose labels', async () => {
    const r = await reportOf({
      web: {
        'kong/kong.yml': lines(
          '_format_version: "3.0"',
          'services:',
          '  - name: orders',
          '    url: http://orders:8080/v1',
          '    routes:',
          '      - name: orders',
          '        paths: [/api/orders]',
          '  - name: users',
          '    host: users',
          '    port: 5000',
          '    routes:',
          '      - paths:',
          '          - /users',
          '        strip_path: false',
          '      - paths: ["~/legacy/.*"]',
        ),
        'traefik/dynamic.yml': lines(
          'http:',
          '  routers:',
          '    billing:',
          '      rule: "Host(`shop.local`) && PathPrefix(`/billing`)"',
          '      service: billing-svc',
          '      middlewares: [strip-billing]',
          '  middlewares:',
          '    strip-billing:',
          '      stripPrefix:',
          '        prefixes: ["/billing"]',
          '  services:',
          '    billing-svc:',
          '      loadBalancer:',
          '        servers:',
          '          - url: http://billing:9000/',
        ),
        'docker-compose.yml': lines(
          'services:',
          '  stock:',
          '    image: stock',
          '    labels:',
          '      - "traefik.http.routers.stock.rule=PathPrefix(`/stock`)"',
          '      - "traefik.http.services.stock.loadbalancer.server.port=7000"',
        ),
        'app.js': lines(
          "fetch('/api/orders/items/' + id);",
          "fetch('/users/me');",
          "fetch('/billing/invoices/' + id);",
          "fetch('/stock/levels');",
        ),
      },
      orders: { 'server.js': lines("const app = require('express')();", "app.get('/v1/items/:id', h);") },
      users: { 'app.py': lines('@app.route("/users/me")', 'def me():', '    return ""') },
      billing: { 'main.go': lines('package main', 'func main() {', '\thttp.HandleFunc("GET /invoices/{id}", h)', '}') },
      stock: { 'server.js': lines("const app = require('express')();", "app.get('/stock/levels', h);") },
    });
    expect(rows(r)).toEqual([
      'web app.js:1 | GET /api/orders/items/{} | orders server.js:2 GET /v1/items/:id (express)',
      'web app.js:2 | GET /users/me | users app.py:1 GET /users/me (flask)',
      'web app.js:3 | GET /billing/invoices/{} | billing main.go:3 GET /invoices/{id} (net/http)',
      'web app.js:4 | GET /stock/levels | stock server.js:2 GET /stock/levels (express)',
    ]);
  });
});

describe('Celery routing (issue 20)', () => {
  it('task_routes globs and task_default_queue of the shared Celery configuration, and a call’s queue=, name the queue each task is sent to', async () => {
    const r = await reportOf({
      web: {
        'app/views.py': lines(
          'from celery import Celery',
          "celery = Celery('web', broker='amqp://rabbitmq')",
          'def order(request):',
          "    celery.send_task('orders.charge', args=[1])",
          "    celery.send_task('worker.tasks.ship', args=[1], queue='shipping')",
          "    celery.send_task('reports.build')",
        ),
      },
      worker: {
        'worker/celeryconfig.py': lines(
          "broker_url = 'amqp://rabbitmq'",
          "task_default_queue = 'default'",
          'task_routes = {',
          "    'orders.*': {'queue': 'payments'},",
          "    'worker.tasks.ship': dict(queue='logistics'),",
          '}',
        ),
        'worker/tasks.py': lines(
          'from celery import Celery, shared_task',
          "app = Celery('worker')",
          "app.config_from_object('worker.celeryconfig')",
          "@app.task(name='orders.charge')",
          'def charge(order_id):',
          '    pass',
          '@shared_task',
          'def ship(order_id):',
          '    pass',
          "@app.task(name='reports.build')",
          'def build():',
          '    pass',
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} | ${t.match}`)).toEqual([
      'web app/views.py:4 | Celery task `orders.charge` (its own binding) on queue `payments`',
      'web app/views.py:5 | Celery task `worker.tasks.ship` (its own binding) on queue `shipping`',
      'web app/views.py:6 | Celery task `reports.build` (its own binding) on queue `default`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
