import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20, blind29d round: Elixir (Phoenix routes, HTTP clients, elixir-grpc, the `amqp` package), each form
 * with a small application written here.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const ROUTER = lines(
  'defmodule AccountsWeb.Router do',
  '  use AccountsWeb, :router',
  '  pipeline :api do',
  '    plug :accepts, ["json"]',
  '  end',
  '  scope "/api", AccountsWeb do',
  '    pipe_through :api',
  '    get "/health", HealthController, :index',
  '    scope "/v2" do',
  '      post "/sessions", SessionController, :create',
  '    end',
  '    resources "/users", UserController, except: [:new, :edit] do',
  '      resources "/posts", PostController, only: [:index]',
  '    end',
  '  end',
  'end',
);

describe('Elixir: Phoenix router and HTTP clients', () => {
  it('routes under nested scopes and resources (only:/except:, nested) are served; HTTPoison, Req, Finch, :httpc and a Tesla module reach them with literals, module attributes, env defaults and config/*.exs', async () => {
    const r = await reportOf({
      accounts: {
        'mix.exs': lines('defmodule Accounts.MixProject do', '  use Mix.Project', 'end'),
        'lib/accounts_web/router.ex': ROUTER,
      },
      shop: {
        'config/config.exs': lines(
          'import Config',
          'config :shop, accounts_url: System.get_env("ACCOUNTS_URL", "http://accounts:4000")',
        ),
        'lib/shop/accounts.ex': lines(
          'defmodule Shop.Accounts do',
          '  @base System.get_env("ACCOUNTS_BASE", "http://accounts:4000/api")',
          '  def user(id), do: HTTPoison.get!("#{@base}/users/#{id}")',
          '  def posts(id) do',
          '    base = Application.get_env(:shop, :accounts_url)',
          '    Req.get!(url: base <> "/api/users/#{id}/posts")',
          '  end',
          '  def login(body) do',
          '    host = System.get_env("ACCOUNTS_HOST") || "accounts:4000"',
          '    Finch.build(:post, "http://#{host}/api/v2/sessions", [], body) |> Finch.request(MyFinch)',
          '  end',
          '  def health, do: :httpc.request(~c"http://accounts:4000/api/health")',
          '  def drop(id), do: HTTPoison.request(:delete, "http://accounts:4000/api/users/#{id}")',
          '  def missing, do: HTTPoison.post("http://accounts:4000/api/users/1/edit", "")',
          '  def me do',
          '    req = Req.new(base_url: @base)',
          '    Req.get!(req, url: "/users/me")',
          '  end',
          'end',
        ),
        'lib/shop/client.ex': lines(
          'defmodule Shop.Client do',
          '  use Tesla',
          '  plug Tesla.Middleware.BaseUrl, "http://accounts:4000/api"',
          '  plug Tesla.Middleware.JSON',
          '  def create(user), do: post("/users", user)',
          '  def find(client, id), do: get(client, "/users/#{id}")',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop lib/shop/accounts.ex:3 | GET accounts/api/users/{} | accounts lib/accounts_web/router.ex:12 GET /api/users/:id (phoenix)',
      'shop lib/shop/accounts.ex:6 | GET accounts/api/users/{}/posts | accounts lib/accounts_web/router.ex:13 GET /api/users/:user_id/posts (phoenix)',
      'shop lib/shop/accounts.ex:10 | POST accounts/api/v2/sessions | accounts lib/accounts_web/router.ex:10 POST /api/v2/sessions (phoenix)',
      'shop lib/shop/accounts.ex:12 | GET accounts/api/health | accounts lib/accounts_web/router.ex:8 GET /api/health (phoenix)',
      'shop lib/shop/accounts.ex:13 | DELETE accounts/api/users/{} | accounts lib/accounts_web/router.ex:12 DELETE /api/users/:id (phoenix)',
      'shop lib/shop/accounts.ex:17 | GET accounts/api/users/me | accounts lib/accounts_web/router.ex:12 GET /api/users/:id (phoenix)',
      'shop lib/shop/client.ex:5 | POST accounts/api/users | accounts lib/accounts_web/router.ex:12 POST /api/users (phoenix)',
      'shop lib/shop/client.ex:6 | GET accounts/api/users/{} | accounts lib/accounts_web/router.ex:12 GET /api/users/:id (phoenix)',
    ]);
    // `except: [:new, :edit]`: no edit route.
    expect(unresolved(r)).toEqual([
      'shop lib/shop/accounts.ex:14 POST accounts/api/users/1/edit — no matching route: `accounts` serves no POST /api/users/1/edit',
    ]);
  });

  it('a Plug.Router serves its `get "/p" do … end` routes; verb calls outside a router file serve nothing', async () => {
    const r = await reportOf({
      accounts: {
        'lib/accounts/cache.ex': lines(
          'defmodule Accounts.Cache do',
          '  def read, do: get "/users", Store, :all',
          'end',
        ),
        'lib/accounts/health.ex': lines(
          'defmodule Accounts.Health do',
          '  use Plug.Router',
          '  plug :match',
          '  get "/ping/:who" do',
          '    send_resp(conn, 200, "pong")',
          '  end',
          '  match _ do',
          '    send_resp(conn, 404, "")',
          '  end',
          'end',
        ),
      },
      shop: {
        'lib/shop/a.ex': lines(
          'defmodule Shop.A do',
          '  def f, do: HTTPoison.get!("http://accounts:4000/users")',
          '  def g, do: HTTPoison.get!("http://accounts:4000/ping/shop")',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop lib/shop/a.ex:3 | GET accounts/ping/shop | accounts lib/accounts/health.ex:4 GET /ping/:who (plug)',
    ]);
    expect(unresolved(r)).toEqual([
      'shop lib/shop/a.ex:2 GET accounts/users — no matching route: `accounts` serves no GET /users',
    ]);
  });
});

const PB = (pkg: string, mod: string): string =>
  lines(
    `defmodule ${mod}.BillingService.Service do`,
    '  @moduledoc false',
    `  use GRPC.Service, name: "${pkg}.BillingService", protoc_gen_elixir_version: "0.12.0"`,
    `  rpc(:Charge, ${mod}.ChargeRequest, ${mod}.ChargeReply)`,
    `  rpc :GetInvoice, ${mod}.GetInvoiceRequest, ${mod}.Invoice`,
    'end',
    `defmodule ${mod}.BillingService.Stub do`,
    `  use GRPC.Stub, service: ${mod}.BillingService.Service`,
    'end',
  );

describe('Elixir: elixir-grpc', () => {
  it('a generated Stub called on a connected channel (also through an `alias … as:`) reaches the GRPC.Server of the service the .pb.ex names (snake_case → rpc name)', async () => {
    const r = await reportOf({
      billing: {
        'lib/billing/grpc/billing.pb.ex': PB('billing', 'Billing.Proto'),
        'lib/billing/grpc/server.ex': lines(
          'defmodule Billing.GRPC.Server do',
          '  use GRPC.Server, service: Billing.Proto.BillingService.Service',
          '  def charge(req, _stream), do: %Billing.Proto.ChargeReply{}',
          '  def get_invoice(req, _stream), do: %Billing.Proto.Invoice{}',
          'end',
        ),
      },
      shop: {
        'lib/shop/grpc/billing.pb.ex': PB('billing', 'Billing'),
        'lib/shop/billing_client.ex': lines(
          'defmodule Shop.BillingClient do',
          '  alias Billing.BillingService.Stub, as: Billing',
          '  def channel do',
          '    host = System.get_env("BILLING_HOST", "billing")',
          '    port = System.get_env("BILLING_PORT", "50051")',
          '    GRPC.Stub.connect("#{host}:#{port}")',
          '  end',
          '  def charge(req) do',
          '    with {:ok, ch} <- channel(), do: Billing.BillingService.Stub.charge(ch, req)',
          '  end',
          '  def invoice(req) do',
          '    {:ok, ch} = channel()',
          '    Billing.get_invoice(ch, req)',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop lib/shop/billing_client.ex:9 | gRPC billing.BillingService/Charge at `billing` | billing lib/billing/grpc/server.ex:2 gRPC billing.BillingService/Charge (elixir-grpc, rpc at billing lib/billing/grpc/billing.pb.ex:4)',
      'shop lib/shop/billing_client.ex:13 | gRPC billing.BillingService/GetInvoice at `billing` | billing lib/billing/grpc/server.ex:2 gRPC billing.BillingService/GetInvoice (elixir-grpc, rpc at billing lib/billing/grpc/billing.pb.ex:5)',
    ]);
  });
});

describe('Elixir: AMQP', () => {
  it('AMQP.Basic.publish through a GenServer cast (or a `send` to itself) reaches the queue bound to the topic exchange; names from module attributes, Application.get_env defaults and config/*.exs', async () => {
    const r = await reportOf({
      auth: {
        'lib/auth/publisher.ex': lines(
          'defmodule Auth.Publisher do',
          '  use GenServer',
          '  @exchange "events"',
          '  def signed_up(user), do: GenServer.cast(__MODULE__, {:publish, "user.signup", user})',
          '  def deleted(user), do: GenServer.cast(__MODULE__, {:publish, "user.deleted", user})',
          '  def handle_cast({:publish, routing_key, event}, state) do',
          '    AMQP.Basic.publish(state.channel, @exchange, routing_key, Jason.encode!(event))',
          '    {:noreply, state}',
          '  end',
          '  def audit(user), do: send(self(), {:audit, "user.audit", user})',
          '  def handle_info({:audit, key, ev}, state), do: AMQP.Basic.publish(state.channel, @exchange, key, ev)',
          '  defp connect(chan) do',
          '    AMQP.Exchange.declare(chan, @exchange, :topic, durable: true)',
          '  end',
          'end',
        ),
      },
      alert: {
        'config/config.exs': lines('import Config', 'config :alert, queue: "alert.signups", exchange: "events"'),
        'lib/alert/consumer.ex': lines(
          'defmodule Alert.Consumer do',
          '  use GenServer',
          '  defp connect(chan) do',
          '    exchange = Application.get_env(:alert, :exchange, "events")',
          '    queue = Application.get_env(:alert, :queue, "alert.signups")',
          '    :ok = AMQP.Exchange.topic(chan, exchange, durable: true)',
          '    {:ok, _} = AMQP.Queue.declare(chan, queue, durable: true)',
          '    :ok = AMQP.Queue.bind(chan, queue, exchange, routing_key: "user.signup")',
          '    {:ok, _tag} = AMQP.Basic.consume(chan, queue)',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'auth lib/auth/publisher.ex:7 | publish `events` / `user.signup` | alert lib/alert/consumer.ex:9 consume queue `alert.signups`',
    ]);
    expect(gaps(r)).toEqual([
      'publisher auth lib/auth/publisher.ex:7 no binding routes `events` / `user.deleted` to a queue',
      'publisher auth lib/auth/publisher.ex:11 no binding routes `events` / `user.audit` to a queue',
    ]);
  });
});

describe('Elixir: forwarded plugs, LiveView routes and AMQP names from config/*.exs', () => {
  it('`forward "/p", Plug` serves every path below /p (Phoenix and Plug.Router `to:`); `live "/p", Module` serves GET /p', async () => {
    const r = await reportOf({
      accounts: {
        'lib/accounts_web/router.ex': lines(
          'defmodule AccountsWeb.Router do',
          '  use Phoenix.Router',
          '  scope "/", AccountsWeb do',
          '    live "/dashboard", DashboardLive',
          '    live "/users/:id", UserLive.Show, :show',
          '  end',
          '  scope "/api" do',
          '    forward "/graphql", Absinthe.Plug, schema: AccountsWeb.Schema',
          '  end',
          'end',
        ),
      },
      files: {
        'lib/files/router.ex': lines(
          'defmodule Files.Router do',
          '  use Plug.Router',
          '  plug :match',
          '  forward "/blobs", to: Files.BlobRouter',
          'end',
        ),
      },
      shop: {
        'lib/shop/a.ex': lines(
          'defmodule Shop.A do',
          '  def q, do: HTTPoison.post!("http://accounts:4000/api/graphql", "{}")',
          '  def d, do: HTTPoison.get!("http://accounts:4000/dashboard")',
          '  def u(id), do: HTTPoison.get!("http://accounts:4000/users/#{id}")',
          '  def b(id), do: HTTPoison.delete!("http://files:4000/blobs/#{id}")',
          '  def x, do: HTTPoison.get!("http://accounts:4000/graphql")',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop lib/shop/a.ex:2 | POST accounts/api/graphql | accounts lib/accounts_web/router.ex:8 ANY /api/graphql/** (phoenix)',
      'shop lib/shop/a.ex:3 | GET accounts/dashboard | accounts lib/accounts_web/router.ex:4 GET /dashboard (phoenix)',
      'shop lib/shop/a.ex:4 | GET accounts/users/{} | accounts lib/accounts_web/router.ex:5 GET /users/:id (phoenix)',
      'shop lib/shop/a.ex:5 | DELETE files/blobs/{} | files lib/files/router.ex:4 ANY /blobs/** (plug)',
    ]);
    // The forward is under `/api`: `/graphql` itself is served by nobody.
    expect(unresolved(r)).toEqual([
      'shop lib/shop/a.ex:6 GET accounts/graphql — no matching route: `accounts` serves no GET /graphql',
    ]);
  });

  it('exchange, queue and key from Application.get_env / fetch_env! without a default are the config/*.exs values', async () => {
    const r = await reportOf({
      auth: {
        'config/config.exs': lines('import Config', 'config :auth, exchange: "events", signup_key: "user.signup"'),
        'lib/auth/publisher.ex': lines(
          'defmodule Auth.Publisher do',
          '  def signed_up(chan, user) do',
          '    exchange = Application.get_env(:auth, :exchange)',
          '    AMQP.Basic.publish(chan, exchange, Application.get_env(:auth, :signup_key), Jason.encode!(user))',
          '  end',
          'end',
        ),
      },
      alert: {
        'config/config.exs': lines('import Config', 'config :alert, queue: "alert.signups", exchange: "events"'),
        'lib/alert/consumer.ex': lines(
          'defmodule Alert.Consumer do',
          '  defp connect(chan) do',
          '    exchange = Application.get_env(:alert, :exchange)',
          '    queue = Application.fetch_env!(:alert, :queue)',
          '    :ok = AMQP.Exchange.topic(chan, exchange, durable: true)',
          '    {:ok, _} = AMQP.Queue.declare(chan, queue, durable: true)',
          '    :ok = AMQP.Queue.bind(chan, queue, exchange, routing_key: "user.*")',
          '    {:ok, _tag} = AMQP.Basic.consume(chan, queue)',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'auth lib/auth/publisher.ex:4 | publish `events` / `user.signup` | alert lib/alert/consumer.ex:8 consume queue `alert.signups`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
