import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A Laravel `config/queue.php`: the default connection from `QUEUE_CONNECTION`, and four connections. */
const QUEUE_CONFIG = lines(
  '<?php',
  'return [',
  "    'default' => env('QUEUE_CONNECTION', 'sync'),",
  "    'connections' => [",
  "        'sync' => ['driver' => 'sync'],",
  "        'database' => ['driver' => 'database', 'table' => 'jobs', 'queue' => 'default'],",
  "        'redis' => ['driver' => 'redis', 'connection' => 'default', 'queue' => env('REDIS_QUEUE', 'default')],",
  "        'amqp' => [",
  "            'driver' => 'rabbitmq',",
  "            'queue' => env('RABBITMQ_QUEUE', 'default'),",
  "            'hosts' => [['host' => env('RABBITMQ_HOST', '127.0.0.1'), 'port' => 5672]],",
  "            'options' => ['queue' => ['job' => VladimirYuldashev\\LaravelQueueRabbitMQ\\Queue\\Jobs\\RabbitMQJob::class]],",
  '        ],',
  '    ],',
  "    'failed' => ['driver' => 'database-uuids', 'table' => 'failed_jobs'],",
  '];',
);

/** A queued job class `App\Jobs\<name>` (as both apps declare it: the producer serialises its own copy). */
const job = (name: string, body: string[] = [], ns = 'App\\Jobs'): string =>
  lines(
    '<?php',
    `namespace ${ns};`,
    'use Illuminate\\Bus\\Queueable;',
    'use Illuminate\\Contracts\\Queue\\ShouldQueue;',
    'use Illuminate\\Foundation\\Bus\\Dispatchable;',
    `class ${name} implements ShouldQueue`,
    '{',
    '    use Dispatchable, Queueable;',
    ...body,
    '    public function __construct(public array $data) {}',
    '    public function handle(): void',
    '    {',
    '    }',
    '}',
  );

describe('Laravel queued jobs (issue 20)', () => {
  it('every dispatch form reaches the job class of the same full name in another service, on the queue config and .env name', async () => {
    const r = await reportOf({
      shop: {
        '.env.example': lines('APP_NAME=shop', 'QUEUE_CONNECTION=amqp', 'RABBITMQ_QUEUE=orders'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/OrderPlaced.php': job('OrderPlaced'),
        'app/Jobs/OrderCancelled.php': job('OrderCancelled'),
        'app/Jobs/Billing/Refund.php': job('Refund', [], 'App\\Jobs\\Billing'),
        'app/Http/Controllers/OrderController.php': lines(
          '<?php',
          'namespace App\\Http\\Controllers;',
          'use App\\Jobs\\{OrderPlaced, OrderCancelled as Cancelled};',
          'use App\\Jobs\\Billing;',
          'use Illuminate\\Support\\Facades\\Bus;',
          'use Illuminate\\Support\\Facades\\Queue;',
          'class OrderController extends Controller',
          '{',
          '    public function store($order)',
          '    {',
          '        OrderPlaced::dispatch($order->toArray());',
          "        OrderPlaced::dispatch(['id' => 1])->onQueue('priority');",
          '        dispatch(new Cancelled([]));',
          "        $this->dispatch((new Cancelled([]))->onQueue(env('CANCEL_QUEUE', 'cancels')));",
          '        $job = new Billing\\Refund([]);',
          '        Bus::dispatch($job);',
          "        Queue::pushOn('refunds', new Billing\\Refund([]));",
          '    }',
          '}',
        ),
      },
      warehouse: {
        '.env.example': lines('QUEUE_CONNECTION=amqp'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/OrderPlaced.php': job('OrderPlaced'),
        'app/Jobs/OrderCancelled.php': job('OrderCancelled'),
        'app/Jobs/Billing/Refund.php': job('Refund', [], 'App\\Jobs\\Billing'),
      },
    });
    const at = (f: string, l: number): string => `warehouse app/Jobs/${f}.php:${l}`;
    expect(rows(r)).toEqual([
      `shop app/Http/Controllers/OrderController.php:11 | publish Laravel / \`App\\Jobs\\OrderPlaced\` (queue \`orders\`) | ${at('OrderPlaced', 10)} consume queue \`orders\` (Laravel job \`App\\Jobs\\OrderPlaced\`)`,
      `shop app/Http/Controllers/OrderController.php:12 | publish Laravel / \`App\\Jobs\\OrderPlaced\` (queue \`priority\`) | ${at('OrderPlaced', 10)} consume queue \`priority\` (Laravel job \`App\\Jobs\\OrderPlaced\`)`,
      `shop app/Http/Controllers/OrderController.php:13 | publish Laravel / \`App\\Jobs\\OrderCancelled\` (queue \`orders\`) | ${at('OrderCancelled', 10)} consume queue \`orders\` (Laravel job \`App\\Jobs\\OrderCancelled\`)`,
      `shop app/Http/Controllers/OrderController.php:14 | publish Laravel / \`App\\Jobs\\OrderCancelled\` (queue \`cancels\`) | ${at('OrderCancelled', 10)} consume queue \`cancels\` (Laravel job \`App\\Jobs\\OrderCancelled\`)`,
      `shop app/Http/Controllers/OrderController.php:16 | publish Laravel / \`App\\Jobs\\Billing\\Refund\` (queue \`orders\`) | ${at('Billing/Refund', 10)} consume queue \`orders\` (Laravel job \`App\\Jobs\\Billing\\Refund\`)`,
      `shop app/Http/Controllers/OrderController.php:17 | publish Laravel / \`App\\Jobs\\Billing\\Refund\` (queue \`refunds\`) | ${at('Billing/Refund', 10)} consume queue \`refunds\` (Laravel job \`App\\Jobs\\Billing\\Refund\`)`,
    ]);
    // The shop's own copies are not fed across services, and the shop's self-deliveries are no rows and no gaps.
    expect(gaps(r)).toEqual([]);
  });

  it('the class names the connection and queue; onConnection on the dispatch wins; a worker on another driver is not reached', async () => {
    const r = await reportOf({
      api: {
        '.env': lines('QUEUE_CONNECTION=redis'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/SendMail.php': job('SendMail', ["    public $connection = 'amqp';", "    public $queue = 'mail';"]),
        'app/Jobs/Resize.php': job('Resize', ["    public function __construct() { $this->onQueue('images'); }"]),
        'app/Console/Commands/Run.php': lines(
          '<?php',
          'namespace App\\Console\\Commands;',
          'use App\\Jobs\\SendMail;',
          'use App\\Jobs\\Resize;',
          'class Run extends Command',
          '{',
          '    public function handle()',
          '    {',
          '        SendMail::dispatch();',
          "        Resize::dispatch()->onConnection('amqp');",
          '        Resize::dispatch();',
          '    }',
          '}',
        ),
      },
      mailer: {
        '.env': lines('QUEUE_CONNECTION=amqp'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/SendMail.php': job('SendMail', ["    public $connection = 'amqp';", "    public $queue = 'mail';"]),
        'app/Jobs/Resize.php': job('Resize', ["    public function __construct() { $this->onQueue('images'); }"]),
      },
    });
    expect(rows(r)).toEqual([
      'api app/Console/Commands/Run.php:9 | publish Laravel / `App\\Jobs\\SendMail` (queue `mail`) | mailer app/Jobs/SendMail.php:12 consume queue `mail` (Laravel job `App\\Jobs\\SendMail`)',
      'api app/Console/Commands/Run.php:10 | publish Laravel / `App\\Jobs\\Resize` (queue `images`) | mailer app/Jobs/Resize.php:11 consume queue `images` (Laravel job `App\\Jobs\\Resize`)',
    ]);
    // `Resize::dispatch()` on the api's default (redis) connection reaches the api's own worker only.
    expect(gaps(r)).toEqual([]);
  });

  it('no message: a sync connection, synchronous forms, a dispatched class the dispatcher does not queue, another namespace', async () => {
    const r = await reportOf({
      web: {
        '.env.example': lines('QUEUE_CONNECTION=sync'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/Inline.php': job('Inline'),
        'app/Jobs/Later.php': job('Later', ["    public $connection = 'database';"]),
        'app/Jobs/Other.php': job('Other'),
        'app/Events/OrderShipped.php': lines(
          '<?php',
          'namespace App\\Events;',
          'use Illuminate\\Foundation\\Events\\Dispatchable;',
          'class OrderShipped',
          '{',
          '    use Dispatchable;',
          '}',
        ),
        'app/Http/Controllers/C.php': lines(
          '<?php',
          'namespace App\\Http\\Controllers;',
          'use App\\Jobs\\Inline;',
          'use App\\Jobs\\Later;',
          'use App\\Jobs\\Other;',
          'use App\\Events\\OrderShipped;',
          'class C',
          '{',
          '    public function go()',
          '    {',
          '        Inline::dispatch();',
          '        Later::dispatchSync();',
          '        Later::dispatch()->afterResponse();',
          '        dispatch_sync(new Later());',
          '        OrderShipped::dispatch();',
          "        Other::dispatch()->onConnection('database');",
          '    }',
          '}',
        ),
      },
      worker: {
        '.env.example': lines('QUEUE_CONNECTION=database'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/Inline.php': job('Inline'),
        'app/Jobs/Later.php': job('Later', ["    public $connection = 'database';"]),
        'app/Jobs/Other.php': job('Other', [], 'Worker\\Jobs'),
        'app/Listeners/OrderShipped.php': job('OrderShipped', [], 'App\\Events'),
      },
    });
    expect(rows(r)).toEqual([]);
    // `Other` reaches its own class only (the worker's is `Worker\\Jobs\\Other`): no publisher gap either.
    expect(gaps(r).filter((g) => g.startsWith('publisher'))).toEqual([]);
  });

  it('an event queues one job per queued listener of it the dispatching service declares; the listener of the same name elsewhere runs it', async () => {
    const listener = (name: string, extra: string[] = []): string =>
      lines(
        '<?php',
        'namespace App\\Listeners;',
        'use App\\Events\\OrderShipped;',
        'use Illuminate\\Contracts\\Queue\\ShouldQueue;',
        `class ${name} implements ShouldQueue`,
        '{',
        ...extra,
        '    public function handle(OrderShipped $event): void',
        '    {',
        '    }',
        '}',
      );
    const r = await reportOf({
      shop: {
        '.env.example': lines('QUEUE_CONNECTION=redis'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Events/OrderShipped.php': lines(
          '<?php',
          'namespace App\\Events;',
          'class OrderShipped',
          '{',
          '    use Dispatchable;',
          '}',
        ),
        'app/Listeners/NotifyCustomer.php': listener('NotifyCustomer', ["    public $queue = 'notifications';"]),
        'app/Listeners/UpdateStock.php': listener('UpdateStock'),
        'app/Http/Controllers/ShipController.php': lines(
          '<?php',
          'namespace App\\Http\\Controllers;',
          'use App\\Events\\OrderShipped;',
          'class ShipController',
          '{',
          '    public function ship($order)',
          '    {',
          '        OrderShipped::dispatch($order);',
          '        event(new OrderShipped($order));',
          '    }',
          '}',
        ),
      },
      notifier: {
        '.env.example': lines('QUEUE_CONNECTION=redis'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Listeners/NotifyCustomer.php': listener('NotifyCustomer', ["    public $queue = 'notifications';"]),
      },
    });
    const to =
      'notifier app/Listeners/NotifyCustomer.php:8 consume queue `notifications` (Laravel job `App\\Listeners\\NotifyCustomer`)';
    expect(rows(r)).toEqual([
      `shop app/Http/Controllers/ShipController.php:8 | publish Laravel / \`App\\Listeners\\NotifyCustomer\` (queue \`notifications\`) | ${to}`,
      `shop app/Http/Controllers/ShipController.php:9 | publish Laravel / \`App\\Listeners\\NotifyCustomer\` (queue \`notifications\`) | ${to}`,
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it("a job held in a variable is that method's (a closure in it too): another method's parameter of the same name, or a `dispatch` method declared, is no dispatch of it", async () => {
    const r = await reportOf({
      api: {
        '.env': lines('QUEUE_CONNECTION=amqp'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/SendMail.php': job('SendMail'),
        'app/Services/Mailer.php': lines(
          '<?php',
          'namespace App\\Services;',
          'use App\\Jobs\\SendMail;',
          'class Mailer',
          '{',
          '    public function welcome()',
          '    {',
          '        $job = new SendMail([]);',
          '        dispatch($job);',
          '    }',
          '    public function chained()',
          '    {',
          '        $job = new SendMail([]);',
          '        DB::afterCommit(function () use ($job) { dispatch($job); });',
          '    }',
          '    public function later($job)',
          '    {',
          '        dispatch($job);',
          '    }',
          '    public function dispatch($job)',
          '    {',
          '        return app(Dispatcher::class)->dispatch($job);',
          '    }',
          '}',
        ),
      },
      mailer: {
        '.env': lines('QUEUE_CONNECTION=amqp'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/SendMail.php': job('SendMail'),
      },
    });
    expect(rows(r)).toEqual([
      'api app/Services/Mailer.php:9 | publish Laravel / `App\\Jobs\\SendMail` (queue `default`) | mailer app/Jobs/SendMail.php:10 consume queue `default` (Laravel job `App\\Jobs\\SendMail`)',
      'api app/Services/Mailer.php:14 | publish Laravel / `App\\Jobs\\SendMail` (queue `default`) | mailer app/Jobs/SendMail.php:10 consume queue `default` (Laravel job `App\\Jobs\\SendMail`)',
    ]);
  });

  it('a dispatch or a job class commented out is none; a `//` or `#` inside a string is no comment', async () => {
    const r = await reportOf({
      api: {
        '.env': lines('QUEUE_CONNECTION=amqp'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/SendMail.php': job('SendMail'),
        'app/Services/Mailer.php': lines(
          '<?php',
          'namespace App\\Services;',
          'use App\\Jobs\\SendMail;',
          'class Mailer',
          '{',
          '    /**',
          '     * Queues the mail: SendMail::dispatch($user);',
          '     */',
          '    public function welcome($user)',
          '    {',
          '        // SendMail::dispatch($user);',
          '        # dispatch(new SendMail([]));',
          '        /* Queue::push(new SendMail([])); */',
          "        Log::info('see http://mail/#top'); SendMail::dispatch([]);",
          '    }',
          '}',
          '// class Legacy implements ShouldQueue { public function handle() {} }',
        ),
      },
      mailer: {
        '.env': lines('QUEUE_CONNECTION=amqp'),
        'config/queue.php': QUEUE_CONFIG,
        'app/Jobs/SendMail.php': job('SendMail'),
      },
    });
    expect(rows(r)).toEqual([
      'api app/Services/Mailer.php:14 | publish Laravel / `App\\Jobs\\SendMail` (queue `default`) | mailer app/Jobs/SendMail.php:10 consume queue `default` (Laravel job `App\\Jobs\\SendMail`)',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
