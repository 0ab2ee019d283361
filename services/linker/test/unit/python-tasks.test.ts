import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('Python task queues across services: Celery delay, Dramatiq, RQ', () => {
  it('Celery: delay/apply_async of a task imported from another module is its module-path name', async () => {
    const r = await reportOf({
      web: {
        'web/views.py': lines(
          'from worker.tasks import charge, ship as send_parcel',
          'from .helpers import local_only',
          'def checkout(order):',
          '    charge.delay(order.id)',
          '    send_parcel.apply_async(args=[order.id], countdown=10)',
          '    local_only.delay(1)',
          '    order.delay(5)',
        ),
      },
      worker: {
        'worker/tasks.py': lines(
          'from celery import Celery',
          "app = Celery('worker')",
          '@app.task',
          'def charge(order_id):',
          '    pass',
          '@app.task(bind=True)',
          'def ship(self, order_id):',
          '    pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web web/views.py:4 | publish Celery / `worker.tasks.charge` (queue `celery`) | worker worker/tasks.py:3 consume queue `celery` (Celery task `worker.tasks.charge`)',
      'web web/views.py:5 | publish Celery / `worker.tasks.ship` (queue `celery`) | worker worker/tasks.py:6 consume queue `celery` (Celery task `worker.tasks.ship`)',
    ]);
    // The relative import resolves to the caller's own package; an attribute of no imported task is nothing.
    expect(gaps(r)).toEqual(['publisher web web/views.py:6 no consumer of Celery task `web.helpers.local_only`']);
  });

  it('Dramatiq: Message(actor_name, queue_name) and send of a declared or imported actor reach @dramatiq.actor by name', async () => {
    const r = await reportOf({
      api: {
        'api/jobs.py': lines(
          'import dramatiq',
          'from dramatiq import Message',
          'from reports.actors import render',
          'broker = dramatiq.get_broker()',
          'def resize(image_id):',
          "    broker.enqueue(Message(queue_name='images', actor_name='resize_image', args=(image_id,), kwargs={}, options={}))",
          '    render.send(image_id)',
          "    broker.enqueue(Message(queue_name='images', actor_name='nobody', args=(), kwargs={}, options={}))",
        ),
      },
      media: {
        'media/actors.py': lines(
          'import dramatiq',
          "@dramatiq.actor(queue_name='images', actor_name='resize_image', max_retries=3)",
          'def resize(image_id):',
          '    pass',
          '@dramatiq.actor',
          'def render(image_id):',
          '    pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'api api/jobs.py:6 | publish Dramatiq / `resize_image` (queue `images`) | media media/actors.py:2 consume queue `images` (Dramatiq actor `resize_image`)',
      'api api/jobs.py:7 | publish Dramatiq / `render` | media media/actors.py:5 consume Dramatiq actor `render`',
    ]);
    expect(r.table[0]!.match).toContain('on queue `images`');
    expect(gaps(r)).toEqual(['publisher api api/jobs.py:8 no consumer of Dramatiq actor `nobody`']);
  });

  it('Dramatiq queues: send of an imported actor goes to the queue its @dramatiq.actor(queue_name=…) declares', async () => {
    const r = await reportOf({
      api: {
        'api/views.py': lines(
          'import dramatiq',
          'from dramatiq.brokers.redis import RedisBroker',
          'from worker.actors import send_welcome, count_visit',
          'def signup(user):',
          '    send_welcome.send(user.email)',
          '    count_visit.send_with_options(args=(user.id,), delay=1000)',
        ),
      },
      worker: {
        'worker/actors.py': lines(
          'import dramatiq',
          'EMAILS = "emails"',
          '@dramatiq.actor(queue_name=EMAILS, max_retries=5)',
          'def send_welcome(email):',
          '    pass',
          '@dramatiq.actor',
          'def count_visit(user_id):',
          '    pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'api api/views.py:5 | publish Dramatiq / `send_welcome` (queue `emails`) | worker worker/actors.py:3 consume queue `emails` (Dramatiq actor `send_welcome`)',
      'api api/views.py:6 | publish Dramatiq / `count_visit` | worker worker/actors.py:6 consume Dramatiq actor `count_visit`',
    ]);
    expect(r.table[0]!.match).toContain('on queue `emails`');
  });

  it('RQ: enqueue on a named (or the default) queue reaches a Worker of it and the `rq worker` command of a Dockerfile or compose file', async () => {
    const r = await reportOf({
      api: {
        'api/app.py': lines(
          'from redis import Redis',
          'from rq import Queue',
          "redis = Redis(host='redis')",
          "emails = Queue('emails', connection=redis)",
          'default_q = Queue(connection=redis)',
          'def signup(user):',
          "    emails.enqueue('mailer.tasks.welcome', user.email)",
          "    default_q.enqueue_in(timedelta(days=1), 'mailer.tasks.nudge', user.email)",
          "    Queue('reports', connection=redis).enqueue('reports.build', user.id)",
          "    Queue('nowhere', connection=redis).enqueue('x.y')",
        ),
      },
      mailer: {
        'mailer/worker.py': lines(
          'from rq import Worker, Queue',
          "low = Queue('low')",
          "w = Worker(['emails', low], connection=redis)",
          'w.work()',
        ),
        Dockerfile: lines(
          'FROM python:3.12',
          'CMD ["rq", "worker", "--url", "redis://redis:6379", "--with-scheduler"]',
        ),
      },
      reports: {
        'docker-compose.yml': lines(
          'services:',
          '  reports:',
          '    build: .',
          '    command: rq worker -u redis://redis:6379 reports high',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'api api/app.py:7 | publish to queue `emails` (RQ) | mailer mailer/worker.py:3 consume queue `emails` (RQ)',
      'api api/app.py:8 | publish to queue `default` (RQ) | mailer Dockerfile:2 consume queue `default` (RQ)',
      'api api/app.py:9 | publish to queue `reports` (RQ) | reports docker-compose.yml:4 consume queue `reports` (RQ)',
    ]);
    expect(gaps(r)).toEqual([
      'publisher api api/app.py:10 no consumer of RQ queue `nowhere`',
      'consumer mailer mailer/worker.py:3 no producer for RQ queue `low`',
      'consumer reports docker-compose.yml:4 no producer for RQ queue `high`',
    ]);
  });
});

describe('Celery tasks named by a module path from a deeper import root (issue 20)', () => {
  it('send_task("tasks.x") reaches the one unnamed task whose module path ends with it; an exact name or two candidates do not move', async () => {
    const r = await reportOf({
      api: {
        'api/app.py': lines(
          'from celery import Celery',
          "celery = Celery('api', broker='redis://redis:6379/0')",
          'def go():',
          "    celery.send_task('tasks.resize', args=[1])",
          "    celery.send_task('tasks.render', args=[1])",
          "    celery.send_task('jobs.cleanup')",
          "    celery.send_task('cleanup')",
        ),
      },
      images: {
        'images/worker/tasks.py': lines(
          'from celery import Celery',
          "app = Celery('tasks', broker='redis://redis:6379/0')",
          '@app.task',
          'def resize(image_id):',
          '    pass',
          "@app.task(name='tasks.render')",
          'def render(image_id):',
          '    pass',
          '@app.task',
          'def cleanup():',
          '    pass',
        ),
        'images/other/tasks.py': lines(
          'from celery import shared_task',
          '@shared_task',
          'def render(image_id):',
          '    pass',
        ),
      },
      reports: {
        'reports/jobs.py': lines('from celery import shared_task', '@shared_task', 'def cleanup():', '    pass'),
        'archive/jobs.py': lines('from celery import shared_task', '@shared_task', 'def cleanup():', '    pass'),
      },
    });
    expect(rows(r)).toEqual([
      'api api/app.py:4 | publish Celery / `tasks.resize` (queue `celery`) | images images/worker/tasks.py:3 consume queue `celery` (Celery task `tasks.resize`)',
      'api api/app.py:5 | publish Celery / `tasks.render` (queue `celery`) | images images/worker/tasks.py:6 consume queue `celery` (Celery task `tasks.render`)',
    ]);
    // `tasks.render` is a task's own name: `images.other.tasks.render` keeps its path; `jobs.cleanup` has two
    // candidates; a bare function name is no module path.
    expect(gaps(r)).toEqual([
      'publisher api api/app.py:6 no consumer of Celery task `jobs.cleanup`',
      'publisher api api/app.py:7 no consumer of Celery task `cleanup`',
      'consumer images images/other/tasks.py:2 no producer for Celery task `images.other.tasks.render`',
      'consumer images images/worker/tasks.py:9 no producer for Celery task `images.worker.tasks.cleanup`',
      'consumer reports archive/jobs.py:2 no producer for Celery task `archive.jobs.cleanup`',
      'consumer reports reports/jobs.py:2 no producer for Celery task `reports.jobs.cleanup`',
    ]);
  });
});
