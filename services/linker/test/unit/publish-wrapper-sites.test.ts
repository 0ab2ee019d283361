import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A consumer of the durable queue `ratings` on the default exchange. */
const ratings = {
  'app/consumer.py': lines(
    'import pika',
    '',
    'def main():',
    "    channel = pika.BlockingConnection(pika.ConnectionParameters('rabbit')).channel()",
    "    channel.queue_declare(queue='ratings')",
    "    channel.basic_consume(queue='ratings', on_message_callback=handle)",
  ),
};

describe('a publish wrapper whose names are written in it: one flow row per calling site', () => {
  it('Python: a method publishing to a fixed queue, called from two routes of another file', async () => {
    const r = await reportOf({
      games: {
        'app/producer.py': lines(
          'import pika',
          '',
          'class Broker:',
          '    def __init__(self, host):',
          '        self.channel = pika.BlockingConnection(pika.ConnectionParameters(host)).channel()',
          '',
          '    def emit(self, kind, body):',
          "        self.channel.basic_publish(exchange='', routing_key='ratings', body=body)",
          '',
          "broker = Broker('rabbit')",
        ),
        'app/routes.py': lines(
          'from .producer import broker',
          '',
          'def create(game):',
          "    broker.emit('created', game)",
          '',
          'def delete(game):',
          "    broker.emit('deleted', game)",
        ),
      },
      ratings,
    });
    expect(rows(r)).toEqual([
      'games app/routes.py:4 | publish to queue `ratings` (default exchange) | ratings app/consumer.py:6 consume queue `ratings`',
      'games app/routes.py:7 | publish to queue `ratings` (default exchange) | ratings app/consumer.py:6 consume queue `ratings`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('Python: a call with fewer arguments than the method takes is another function: the wrapper line stays', async () => {
    const r = await reportOf({
      games: {
        'app/producer.py': lines(
          'class Broker:',
          '    def emit(self, kind, body):',
          "        self.channel.basic_publish(exchange='', routing_key='ratings', body=body)",
        ),
        'app/routes.py': lines('def create(other, game):', '    other.emit(game)'),
      },
      ratings,
    });
    expect(rows(r)).toEqual([
      'games app/producer.py:3 | publish to queue `ratings` (default exchange) | ratings app/consumer.py:6 consume queue `ratings`',
    ]);
  });

  it('JS: an exported function publishing with a fixed exchange and key, called from two handlers', async () => {
    const r = await reportOf({
      games: {
        'src/producer.js': lines(
          'function emitRating(channel, body) {',
          "  channel.publish('', 'ratings', Buffer.from(body));",
          '}',
          'module.exports = { emitRating };',
        ),
        'src/routes.js': lines(
          "const { emitRating } = require('./producer');",
          "const create = (ch, g) => emitRating(ch, 'c' + g);",
          "const remove = (ch, g) => emitRating(ch, 'd' + g);",
          'module.exports = { create, remove };',
        ),
      },
      ratings,
    });
    expect(rows(r)).toEqual([
      'games src/routes.js:2 | publish to queue `ratings` (default exchange) | ratings app/consumer.py:6 consume queue `ratings`',
      'games src/routes.js:3 | publish to queue `ratings` (default exchange) | ratings app/consumer.py:6 consume queue `ratings`',
    ]);
  });

  it('Python: a use case that also publishes (not named as a messaging helper) is where its publish happens', async () => {
    const r = await reportOf({
      games: {
        'app/service.py': lines(
          'import pika',
          '',
          'class GameService:',
          '    def __init__(self, host):',
          '        self.channel = pika.BlockingConnection(pika.ConnectionParameters(host)).channel()',
          '',
          '    def register_game(self, game):',
          '        self.save(game)',
          "        self.channel.basic_publish(exchange='', routing_key='ratings', body=game)",
        ),
        'app/routes.py': lines(
          'from .service import GameService',
          '',
          "service = GameService('rabbit')",
          '',
          'def create(game):',
          '    service.register_game(game)',
        ),
      },
      ratings,
    });
    expect(rows(r)).toEqual([
      'games app/service.py:9 | publish to queue `ratings` (default exchange) | ratings app/consumer.py:6 consume queue `ratings`',
    ]);
  });
});
