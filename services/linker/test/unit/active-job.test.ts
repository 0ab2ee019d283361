import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

const chargeJob = lines(
  'class ChargeJob < ApplicationJob',
  '  queue_as :billing',
  '  def perform(order_id)',
  '  end',
  'end',
  'class ReceiptJob < ActiveJob::Base',
  '  def perform(order_id); end',
  'end',
);

describe('Rails Active Job (issue 20)', () => {
  it('perform_later reaches the job class of the same name in another service through a queueing adapter', async () => {
    const r = await reportOf({
      web: {
        'config/application.rb': lines(
          'module Web',
          '  class Application < Rails::Application',
          '    config.active_job.queue_adapter = :sidekiq',
          '  end',
          'end',
        ),
        'config/environments/test.rb': lines(
          'Rails.application.configure do',
          '  config.active_job.queue_adapter = :test',
          'end',
        ),
        'app/jobs/application_job.rb': lines('class ApplicationJob < ActiveJob::Base', 'end'),
        'app/jobs/charge_job.rb': chargeJob,
        'app/controllers/orders_controller.rb': lines(
          'class OrdersController < ApplicationController',
          '  def create',
          '    ChargeJob.perform_later(1)',
          '    ReceiptJob.set(queue: :mail, wait: 5.minutes).perform_later(1)',
          '    ReceiptJob.perform_now(1)',
          '  end',
          'end',
        ),
      },
      billing: {
        'config/application.rb': lines('config.active_job.queue_adapter = :sidekiq'),
        'app/jobs/charge_job.rb': chargeJob,
      },
    });
    expect(rows(r)).toEqual([
      'web app/controllers/orders_controller.rb:3 | publish Active Job / `ChargeJob` (queue `billing`) | billing app/jobs/charge_job.rb:3 consume queue `billing` (Active Job `ChargeJob`)',
      'web app/controllers/orders_controller.rb:4 | publish Active Job / `ReceiptJob` (queue `mail`) | billing app/jobs/charge_job.rb:7 consume queue `mail` (Active Job `ReceiptJob`)',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it("no message: Rails' default :async adapter runs the job in the process; another adapter's worker is not reached", async () => {
    // (A service with no adapter set may still run a Sidekiq process: as a consumer it is not ruled out.)
    const r = await reportOf({
      web: {
        'app/jobs/charge_job.rb': lines('class ChargeJob < ApplicationJob', '  def perform(id); end', 'end'),
        'app/controllers/c.rb': lines('class C', '  def create', '    ChargeJob.perform_later(1)', '  end', 'end'),
      },
      api: {
        'config/application.rb': lines('config.active_job.queue_adapter = :resque'),
        'app/jobs/charge_job.rb': chargeJob,
        'app/controllers/c.rb': lines('class C', '  def create', '    ReceiptJob.perform_later(1)', '  end', 'end'),
      },
      billing: {
        'config/application.rb': lines('config.active_job.queue_adapter = :sidekiq'),
        'app/jobs/charge_job.rb': chargeJob,
      },
    });
    expect(rows(r)).toEqual([]);
  });

  it("a job class's own queue_adapter is the worker of its consumer too, not only of its producer", async () => {
    const job = lines(
      'class ChargeJob < ApplicationJob',
      '  self.queue_adapter = :resque',
      '  def perform(id); end',
      'end',
    );
    const r = await reportOf({
      web: {
        'config/application.rb': lines('config.active_job.queue_adapter = :sidekiq'),
        'app/jobs/charge_job.rb': job,
        'app/controllers/c.rb': lines('class C', '  def create', '    ChargeJob.perform_later(1)', '  end', 'end'),
      },
      billing: {
        'config/application.rb': lines('config.active_job.queue_adapter = :sidekiq'),
        'app/jobs/charge_job.rb': job,
      },
    });
    expect(rows(r)).toEqual([
      'web app/controllers/c.rb:3 | publish Active Job / `ChargeJob` (queue `default`) | billing app/jobs/charge_job.rb:3 consume queue `default` (Active Job `ChargeJob`)',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('perform_later or a job class commented out is none; a `#` inside a string is no comment', async () => {
    const r = await reportOf({
      web: {
        'config/application.rb': lines('config.active_job.queue_adapter = :sidekiq'),
        'app/jobs/charge_job.rb': chargeJob,
        'app/controllers/c.rb': lines(
          'class C',
          '  def create',
          '    # ChargeJob.perform_later(1)',
          '=begin',
          '    ReceiptJob.perform_later(1)',
          '=end',
          '    log("order #1"); ChargeJob.perform_later(2)',
          '  end',
          'end',
          '# class OldJob < ApplicationJob',
        ),
      },
      billing: {
        'config/application.rb': lines('config.active_job.queue_adapter = :sidekiq'),
        'app/jobs/charge_job.rb': chargeJob,
      },
    });
    expect(rows(r)).toEqual([
      'web app/controllers/c.rb:7 | publish Active Job / `ChargeJob` (queue `billing`) | billing app/jobs/charge_job.rb:3 consume queue `billing` (Active Job `ChargeJob`)',
    ]);
  });
});
