import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20, blind27b round: Ruby messaging and HTTP forms a held-out Rails application showed missing (Karafka
 * routing with WaterDrop producers, an OmniAuth OAuth2 strategy calling its provider), each with a small
 * application written here.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('Ruby Kafka: Karafka routing, WaterDrop and ruby-kafka producers', () => {
  it('a Karafka 1.x consumer_groups.draw and a Karafka 2.x routes.draw subscribe what they route (at the routed class`s consume method when the source declares it); every producer form publishes; an unrouted consumer class receives nothing', async () => {
    const r = await reportOf({
      accounts: {
        'config/initializers/waterdrop.rb': lines('KafkaProducer = WaterDrop::Producer.new'),
        'app/topics.rb': lines('module Topics', "  PAYMENTS = 'payments'", 'end'),
        'app/controllers/accounts_controller.rb': lines(
          'class AccountsController < ApplicationController',
          '  def create',
          "    KafkaProducer.produce_sync(topic: 'accounts-stream', payload: event.to_json)",
          "    Karafka.producer.produce_async(topic: 'accounts', payload: event.to_json)",
          "    WaterDrop::SyncProducer.call(event.to_json, topic: 'audit')",
          "    WaterDrop::AsyncProducer.call(event.to_json, :topic => 'audit')",
          '    kafka.deliver_message(event.to_json, topic: Topics::PAYMENTS)',
          "    producer.produce(event.to_json, topic: ENV.fetch('BILLING_TOPIC', 'billing'))",
          '  end',
          'end',
        ),
      },
      billing: {
        'karafka.rb': lines(
          'class KarafkaApp < Karafka::App',
          '  setup do |config|',
          "    config.client_id = 'billing'",
          '  end',
          '  consumer_groups.draw do',
          '    consumer_group :billing do',
          '      topic :accounts do',
          '        consumer AccountsConsumer',
          '      end',
          '    end',
          '    topic "billing" do',
          '      consumer BillingConsumer',
          '    end',
          '  end',
          'end',
        ),
        'app/consumers/accounts_consumer.rb': lines(
          'class AccountsConsumer < ApplicationConsumer',
          '  def consume',
          '    params_batch.each { |m| puts m.payload }',
          '  end',
          'end',
        ),
        'app/consumers/audit_consumer.rb': lines(
          '# Not routed: Karafka never delivers to it.',
          'class AuditConsumer < ApplicationConsumer',
          '  def consume; end',
          'end',
        ),
      },
      ledger: {
        'karafka.rb': lines(
          'class KarafkaApp < Karafka::App',
          '  routes.draw do',
          "    topic 'accounts-stream' do",
          '      consumer AccountsStreamConsumer',
          '    end',
          '    topic :payments do',
          '      consumer PaymentsConsumer',
          '    end',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'accounts app/controllers/accounts_controller.rb:3 | produce Kafka topic `accounts-stream` | ledger karafka.rb:3 consume Kafka topic `accounts-stream`',
      'accounts app/controllers/accounts_controller.rb:4 | produce Kafka topic `accounts` | billing app/consumers/accounts_consumer.rb:2 consume Kafka topic `accounts`',
      'accounts app/controllers/accounts_controller.rb:7 | produce Kafka topic `payments` | ledger karafka.rb:6 consume Kafka topic `payments`',
      'accounts app/controllers/accounts_controller.rb:8 | produce Kafka topic `billing` | billing karafka.rb:11 consume Kafka topic `billing`',
    ]);
    expect(gaps(r)).toEqual([
      'publisher accounts app/controllers/accounts_controller.rb:5 no consumer of Kafka topic `audit`',
      'publisher accounts app/controllers/accounts_controller.rb:6 no consumer of Kafka topic `audit`',
    ]);
  });

  it('Racecar consumers subscribe with subscribes_to, ruby-kafka with each_message(topic:); DeliveryBoy delivers', async () => {
    const r = await reportOf({
      shop: {
        'app/jobs/notify.rb': lines(
          'class Notify',
          "  def run; DeliveryBoy.deliver_async(order.to_json, topic: 'orders'); end",
          "  def again; DeliveryBoy.deliver(order.to_json, topic: 'refunds'); end",
          'end',
        ),
      },
      mail: {
        'app/consumers/order_consumer.rb': lines(
          'class OrderConsumer < Racecar::Consumer',
          "  subscribes_to 'orders', 'refunds', start_from_beginning: false",
          '  def process(message); end',
          'end',
        ),
      },
      audit: {
        'lib/audit.rb': lines(
          "kafka = Kafka.new(['kafka:9092'], client_id: 'audit')",
          "kafka.each_message(topic: 'orders') { |m| puts m.value }",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop app/jobs/notify.rb:2 | produce Kafka topic `orders` | audit lib/audit.rb:2 consume Kafka topic `orders`',
      'shop app/jobs/notify.rb:2 | produce Kafka topic `orders` | mail app/consumers/order_consumer.rb:2 consume Kafka topic `orders`',
      'shop app/jobs/notify.rb:3 | produce Kafka topic `refunds` | mail app/consumers/order_consumer.rb:2 consume Kafka topic `refunds`',
    ]);
  });

  it('a `topic` outside a Karafka routing draw, or a `consumer` call elsewhere, subscribes nothing', async () => {
    const r = await reportOf({
      orders: {
        'app/services/notify.rb': lines(
          'class Notify',
          "  def run; KafkaProducer.produce_sync(topic: 'orders', payload: '{}'); end",
          'end',
        ),
      },
      shop: {
        'app/models/forum.rb': lines(
          'class Forum',
          '  def build',
          '    topic :orders do',
          '      consumer Buyer',
          '    end',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([]);
    expect(gaps(r)).toEqual(['publisher orders app/services/notify.rb:2 no consumer of Kafka topic `orders`']);
  });
});

describe('Ruby OAuth2 clients and Rails member/collection routes', () => {
  it('an OmniAuth strategy calls its provider through the access token under client_options[:site]; an OAuth2::Client site takes token.request(verb, path); Rails on:, collection, scope path:, match via: and root routes', async () => {
    const r = await reportOf({
      auth: {
        'config/routes.rb': lines(
          'Rails.application.routes.draw do',
          '  resources :accounts do',
          '    get :current, on: :collection',
          '    post :lock, on: :member',
          '    collection do',
          '      get :search',
          '    end',
          '  end',
          "  scope path: 'v2', module: 'v2' do",
          '    resources :tokens, only: [:create]',
          '  end',
          "  match 'exports/:id', to: 'exports#show', via: [:get, :post]",
          '  namespace :admin do',
          "    root 'dashboard#index'",
          '  end',
          'end',
        ),
      },
      tasks: {
        'lib/auth_strategy.rb': lines(
          "require 'omniauth-oauth2'",
          'module OmniAuth',
          '  module Strategies',
          '    class Auth < OmniAuth::Strategies::OAuth2',
          '      def raw_info',
          "        @raw_info ||= access_token.get('/accounts/current').parsed",
          '      end',
          '      def search',
          "        access_token.get('/accounts/search')",
          '      end',
          "      option :client_options, { site: ENV.fetch('AUTH_URL', 'http://auth:3000/oauth/authorize') }",
          '    end',
          '  end',
          'end',
        ),
        'app/services/locker.rb': lines(
          'class Locker',
          '  def lock(id)',
          "    client = OAuth2::Client.new(ENV['ID'], ENV['SECRET'], site: 'http://auth:3000')",
          '    token = client.client_credentials.get_token',
          '    token.request(:post, "/accounts/#{id}/lock")',
          "    token.post('v2/tokens')",
          '    token.post("/exports/#{id}")',
          "    token.get('/admin')",
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'tasks app/services/locker.rb:5 | POST auth/accounts/{}/lock | auth config/routes.rb:4 POST /accounts/:id/lock (rails)',
      'tasks app/services/locker.rb:6 | POST auth/v2/tokens | auth config/routes.rb:10 POST /v2/tokens (rails)',
      'tasks app/services/locker.rb:7 | POST auth/exports/{} | auth config/routes.rb:12 POST /exports/:id (rails)',
      'tasks app/services/locker.rb:8 | GET auth/admin | auth config/routes.rb:14 GET /admin (rails)',
      'tasks lib/auth_strategy.rb:6 | GET auth/accounts/current | auth config/routes.rb:3 GET /accounts/current (rails)',
      'tasks lib/auth_strategy.rb:9 | GET auth/accounts/search | auth config/routes.rb:6 GET /accounts/search (rails)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
