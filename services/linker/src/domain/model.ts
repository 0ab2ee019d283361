import type { JsModule, JsPackage } from './js-values';

/**
 * Facts extracted from one source (repository). Everything carries its evidence: a file (relative to
 * the source root, `/`-separated) and a 1-based line.
 */

export interface Loc {
  readonly file: string;
  readonly line: number;
}

/**
 * A string value as far as static analysis knows it. URLs are kept symbolic until link time, when
 * config files and deployment descriptors of every source are known.
 */
export type Part =
  | { readonly lit: string }
  | { readonly env: string; readonly fallback?: string }
  | { readonly config: string; readonly fallback?: string }
  /** An identifier not resolved in its file: looked up among the source's constants at the end. */
  | { readonly ref: string }
  /**
   * Unknown; `alts` when static analysis knows the few values it may have (a variable set in the branches
   * of an `if`): the sink records one call per alternative.
   */
  | { readonly hole: true; readonly alts?: readonly (readonly Part[])[] };

/** `RPC`: a Go net/rpc call or served method (`/Type.Method`); it matches only its own kind, never `ANY`. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ANY' | 'RPC';

/**
 * Go net/rpc facts of one file, joined once the source is read (`extract/go-net-rpc.ts`): `client.Call("T.M", …)`
 * sites, the addresses `rpc.Dial`/`DialHTTP` dial, `rpc.Register(x)`/`RegisterName("N", x)` registrations (x's
 * type, or the constructor that built it), methods with net/rpc's signature, constructors' result types, and a
 * file importing `net/rpc`.
 */
export type GoRpcFact =
  | { readonly kind: 'call'; readonly method: string; readonly loc: Loc }
  | { readonly kind: 'dial'; readonly address: Part[] }
  | {
      readonly kind: 'server';
      readonly type?: string;
      readonly ctor?: string;
      readonly name?: string;
      readonly loc: Loc;
    }
  | { readonly kind: 'method'; readonly recv: string; readonly name: string; readonly loc: Loc }
  | { readonly kind: 'ctor'; readonly name: string; readonly type: string }
  | { readonly kind: 'import' };

export interface Endpoint {
  readonly method: HttpMethod;
  /** The template as written, prefixes joined. */
  readonly path: string;
  readonly framework: string;
  readonly loc: Loc;
  /** Set on Express routers: the file whose router may be mounted under a prefix by another file. */
  readonly routerFile?: string;
  /** Set on Flask blueprint routes with `routerFile`: the blueprint's own `url_prefix`, baked into `path`. */
  readonly routerPrefix?: string;
  /**
   * NestJS: the versions of the controller or method (`@Controller({ version })`, `@Version`), put in
   * the path (`/v1/…`) once the source is read, when it enables URI versioning.
   */
  readonly versions?: readonly string[];
}

/** `app.use('/prefix', importedRouter)`: the target is a module path relative to the source root, no extension. */
export interface Mount {
  readonly prefix: string;
  readonly target: string;
  readonly loc: Loc;
  /** Flask `register_blueprint(bp, url_prefix=…)`: the prefix replaces the blueprint's own. */
  readonly replace?: boolean;
}

export interface Call {
  readonly method: HttpMethod;
  readonly url: readonly Part[];
  readonly client: string;
  readonly loc: Loc;
  /** A service name given by client configuration (Feign `name`, a named HttpClient). */
  readonly serviceName?: string;
  /** Typed client class whose base address is registered elsewhere in the source. */
  readonly clientClass?: string;
  /**
   * C#: the declared type of the call's receiver (`CustomersHttpClient _client`), a class of the source that may
   * derive from HttpClient and set its own base address; used when `clientClass` has none (never stored).
   */
  readonly clientType?: string;
  /**
   * A declared client interface's method (Feign, Retrofit, `@HttpExchange`) making this call: the call is made
   * where the method is invoked (`declared-clients.ts`), not where it is declared.
   */
  readonly clientMethod?: string;
  /** A page's script (a source built on a browser framework): a relative URL is the page's own origin. */
  readonly browser?: boolean;
  /**
   * The request body's fields the code names, by path (`metadata.receiver`), with their values (Python:
   * `json=`/`data=`/`content=` of a dict, a model constructed with keywords, or a variable holding one).
   */
  readonly body?: Readonly<Record<string, Part[]>>;
}

/** A Go function or method: the calls between its first and last line are its own. */
export interface GoFunc {
  readonly pkg: string;
  readonly name: string;
  readonly params: readonly string[];
  readonly file: string;
  readonly start: number;
  readonly end: number;
  /** The functions it calls (`pkg.Name`: its own package's by the package name, an imported one's by the import name). */
  readonly calls?: readonly string[];
  /** A parameter that is a callback whose result it mounts under a prefix (`root.Mount("/api", createHandler(r))`). */
  mounts?: readonly { readonly param: number; readonly prefix: string }[];
  /** A parameter it passes on to another function (`RunOnAddr(addr, createHandler)`), as that function's argument `arg`. */
  forwards?: readonly { readonly param: number; readonly to: string; readonly arg: number }[];
  /** A method's receiver name (`c` of `func (c *Client) Get(…)`): its fields are `c.<field>` in the calls inside. */
  readonly recv?: string;
  /** The receiver's type (`Client` of `(c *Client)`): a call through a field of a known type runs its methods only. */
  readonly recvType?: string;
  /** A constructor's struct fields and their values over its parameters (`&Client{baseURL: cfg.URL}`). */
  readonly fields?: Readonly<Record<string, readonly Part[]>>;
  /** The struct type a constructor returns (`CreateOrderService` of `return &CreateOrderService{…}`). */
  readonly made?: string;
  /** The package's own type a function's result names (`Client` of `func NewClient(…) *Client`). */
  readonly returned?: string;
}

/**
 * A message-broker call inside a Go function whose subject is one of the function's parameters (a project's
 * NATS wrapper `func (b *Broker) Publish(ctx, subject string, data []byte)` calling `nc.PublishMsg(&nats.Msg{
 * Subject: subject})`): the function's callers in other packages and sources name the subject (`go-packages.ts`).
 */
export interface GoMessageUse {
  readonly side: 'publish' | 'consume';
  readonly broker: Broker;
  readonly subject: readonly Part[];
  /** A consumer's queue group or durable name. */
  readonly group?: readonly Part[];
  readonly loc: Loc;
}

/** The constructor call a Go variable or field holds (`c := orders.NewClient(orders.Config{URL: …})`). */
export interface GoCtorCall {
  readonly name: string;
  readonly args: readonly (readonly Part[])[];
  /** Struct literal arguments by position, by their keys. */
  readonly keyed?: Readonly<Record<number, Readonly<Record<string, readonly Part[]>>>>;
}

/**
 * A function given as an argument to a Go function (`server.RunHTTPServer(func(r chi.Router) http.Handler {…})`,
 * `run(routes)`): what it registers takes the prefix under which the callee mounts it. `to` is the callee
 * (`pkg.Name`); `local` when it is a function of the caller's own package (found in the caller's source only);
 * `calls` what the callback calls (a named function: itself), `span` a function literal's lines.
 */
export interface GoCallback {
  readonly to: string;
  readonly local: boolean;
  readonly arg: number;
  readonly calls: readonly string[];
  readonly loc: Loc;
  readonly span?: { readonly start: number; readonly end: number };
}

/**
 * A call `x.Name(args)` where `x` is an imported package, or a name the file binds to a call of one
 * (`customer: customer.NewClient(…)`): the package's function or method `Name` runs at this site.
 */
export interface GoSite {
  readonly pkg: string;
  readonly name: string;
  readonly args: readonly Part[][];
  readonly loc: Loc;
  /** The constructor call the receiver was built by, in the caller's file. */
  readonly ctor?: GoCtorCall;
  /** The receiver's type, when a field's declaration names it: only that type's methods run here. */
  readonly recvType?: string;
  /** The imported package's path (`shop/user_svc/api/grpc` of `usergrpc`): picks the source that holds it. */
  readonly path?: string;
  /** Found by a name's declared type: only the methods of the type the bound constructor returns run here. */
  readonly byType?: boolean;
}

/**
 * A call through a field no binding of its file names (`r.server.accounts.Post(…)`): the package the field
 * holds is found among the bindings and field types of every file of the same Go package (`go-packages.ts`).
 */
export interface GoFieldSite {
  /** The caller's own package (`package main`). */
  readonly in: string;
  readonly field: string;
  readonly name: string;
  readonly args: readonly Part[][];
  readonly loc: Loc;
}

/** A field or name a file of package `in` binds to a value of imported package `pkg` (`accounts *account.Client`). */
export interface GoHolder {
  readonly in: string;
  readonly name: string;
  readonly pkg: string;
  readonly ctor?: GoCtorCall;
  /** The declared type's name (`Client`). */
  readonly type?: string;
}

/**
 * `rabbitmq` routes through exchanges and bindings; every other broker routes by a name alone (a Kafka
 * topic, a Celery task, a Bull queue, a NATS subject, an SQS queue, an SNS topic, a Dapr `<pubsub>/<topic>`,
 * a Sidekiq worker class, a Redis pub/sub channel, a Dramatiq actor, an RQ queue, an MQTT topic, a Laravel queued
 * job class, a Rails Active Job class): the name is its own binding.
 */
export type Broker =
  | 'rabbitmq'
  | 'kafka'
  | 'celery'
  | 'bullmq'
  | 'nats'
  | 'sqs'
  | 'sns'
  | 'dapr'
  | 'sidekiq'
  | 'redis'
  | 'dramatiq'
  | 'rq'
  | 'mqtt'
  | 'laravel'
  | 'activejob';

export interface Publish {
  readonly broker: Broker;
  /**
   * RabbitMQ exchange ('' is the default exchange); Celery, Dramatiq, Sidekiq, Laravel: the queue the task or job
   * is sent to; for Kafka, ''.
   */
  readonly exchange: string;
  /** RabbitMQ routing key; for Kafka and the other named-channel brokers, the name. */
  readonly key: string;
  readonly loc: Loc;
  /** A Spring Cloud Stream binding: kept only when the source's configuration uses Spring Cloud Stream. */
  readonly stream?: boolean;
  /** The message types published here, when the code names every one (Eventuate Tram event classes). */
  readonly types?: readonly string[];
  /**
   * A run-time routing key read from a value's field (`payment.metadata.receiver`): the field a caller of one
   * of the source's routes may have set in its request body (a reply-to queue), resolved when linking.
   */
  readonly keyRef?: string;
  /** Where a `keyRef` key was named when linking (`request field \`metadata.receiver\` sent by …`). */
  readonly keyFrom?: string;
  /**
   * Published by the runtime, not by a call of the code (a Dapr subscription's dead-letter topic): it feeds its
   * consumers, and nothing consuming it is no gap.
   */
  readonly implicit?: boolean;
  /**
   * Laravel: the queue connection the dispatch names (`->onConnection('sqs')`, `Queue::connection('sqs')`); once
   * linked, the driver of the connection the job goes through (`rabbitmq`, `redis`, `sqs`, `database`, …).
   */
  readonly connection?: string;
  /**
   * The routing key is set per message at run time (MassTransit's `UseRoutingKeyFormatter(ctx => ctx.Message.Type)`):
   * it may be any key a binding of the exchange names.
   */
  readonly anyKey?: boolean;
  /**
   * The exchange is a MassTransit endpoint address (`queue:orders`, `exchange:orders`, `rabbitmq://host/orders`),
   * possibly a configuration placeholder: the link stage keeps its last path segment once it is resolved.
   */
  readonly address?: boolean;
}

export interface Consume {
  readonly broker: Broker;
  /** RabbitMQ queue; for Kafka and the other named-channel brokers, the name. */
  readonly queue: string;
  readonly loc: Loc;
  /** A Spring Cloud Stream binding: kept only when the source's configuration uses Spring Cloud Stream. */
  readonly stream?: boolean;
  /** The only message types this subscription handles, when the code names them (Eventuate Tram handlers). */
  readonly types?: readonly string[];
  /**
   * An RPC entrypoint over the broker (nameko `@rpc`): the routing keys it answers among its queue's
   * messages (`<service>.<method>`). Only those reach it, and one no publisher calls is no gap (an API nobody calls).
   */
  readonly rpcKeys?: readonly string[];
  /**
   * A handler that takes only the messages of its queue whose routing key matches one of these topic patterns
   * (@golevelup/nestjs-rabbitmq `@RabbitSubscribe({ routingKey })`: several handlers may share one queue).
   */
  readonly routingKeys?: readonly string[];
  /**
   * Dramatiq, Sidekiq: the queue the actor or worker class is declared on (`queue_name=`, `sidekiq_options queue:`),
   * where a send that names no queue of its own (`actor.send`, `perform_async`) puts the message.
   */
  readonly taskQueue?: string;
  /**
   * Celery: the task is named by its module's path from the source's root (`worker.tasks.add`); the worker's
   * import root may be deeper (`celery -A tasks` run in `worker/` names it `tasks.add`).
   */
  readonly moduleNamed?: boolean;
  /** NATS JetStream: the stream the consumer reads; its durable name (or a core NATS queue group). */
  readonly jetStream?: string;
  readonly durable?: string;
  /**
   * Laravel: the queue connection the job class declares (`$connection`); once linked, the driver of the
   * connection the source's worker reads (its default connection).
   */
  readonly connection?: string;
}

/**
 * A Dapr input binding (`kind: Component`, `spec.type: bindings.<broker>`): the sidecar reads `channel` from the
 * broker and delivers each message as `POST /<name>` to every app of `scopes` (every app when none is listed).
 */
export interface DaprInputBinding {
  readonly name: string;
  readonly broker: Broker;
  /** The topic (MQTT, Kafka) or queue (RabbitMQ) the component reads. */
  readonly channels: readonly string[];
  /** Dapr app-ids the component is scoped to; empty: every app. */
  readonly scopes: readonly string[];
  readonly loc: Loc;
}

export interface Binding {
  readonly exchange: string;
  readonly queue: string;
  readonly key: string;
  readonly loc: Loc;
}

export type ExchangeType = 'direct' | 'topic' | 'fanout' | 'headers';

export interface ExchangeDecl {
  readonly name: string;
  readonly type: ExchangeType;
  readonly loc: Loc;
}

export interface QueueDecl {
  readonly name: string;
  readonly loc: Loc;
}

export type StoreKind = 'table' | 'collection' | 'redis';

export interface DataTouch {
  readonly kind: StoreKind;
  readonly name: string;
  readonly loc: Loc;
}

export interface ConfigEntry {
  /** Environment-style (`ORDERS_URL`) or hierarchical (`Services:Orders`, `orders.base-url`) key. */
  readonly key: string;
  readonly value: string;
  readonly loc: Loc;
  /**
   * Set on entries of a YAML/properties file named after something else than the source itself
   * (`shared/orders.yml` of a Spring Cloud Config repository): the file's base name. At link time the
   * entries apply to the source that goes by that name, not to the one holding the file.
   */
  readonly scope?: string;
  /**
   * The named bundle of settings this entry belongs to (`configmap/<name>`, `secret/<name>` of Kubernetes):
   * it applies to the workloads that reference the bundle, never as the holding source's own configuration
   * when it is a Secret.
   */
  readonly bundle?: string;
  /** A setting whose value another bundle holds (Kubernetes `valueFrom.configMapKeyRef`/`secretKeyRef`). */
  readonly ref?: { readonly bundle: string; readonly key: string };
  /** A program argument (Dockerfile `CMD`/`ENTRYPOINT`, `-D` options): above the program's own files. */
  readonly argument?: boolean;
}

/** A deployment service name (docker-compose service, Kubernetes Service) and what it runs. */
export interface ServiceDecl {
  readonly name: string;
  /** Names the service's code goes by: compose build context / image basenames, k8s container images. */
  readonly targets: readonly string[];
  readonly env: readonly ConfigEntry[];
  readonly loc: Loc;
  /** A Kubernetes workload no Service selects: its env applies to the repository it runs; its name is no host. */
  readonly noHost?: boolean;
  /**
   * Whole bundles the service's environment is filled from, after `env` (which wins): Kubernetes `envFrom`
   * (`configmap/<name>` or `secret/<name>`, with its `prefix`), compose `env_file` (`file/<path>`).
   */
  readonly envFrom?: readonly { readonly bundle: string; readonly prefix?: string }[];
  /** A compose file the service is declared in is an override of the others (`docker-compose.override.yml`). */
  readonly override?: boolean;
  /**
   * Compose bind mounts' host paths, resolved against the compose file's folder (a leading `..` past the
   * source's root dropped): which files of this or another attached source the container reads.
   */
  readonly mounts?: readonly string[];
  /** Compose: the folder of the service's Dockerfile (build context + `dockerfile`), from the compose file's folder. */
  readonly buildDir?: string;
  /** Compose `ports`: the host ports the service is published on (`"8080:80"` → `8080`), fixed ones only. */
  readonly published?: readonly string[];
}

/**
 * A gRPC server registration (`RegisterXServer`, `MapGrpcService<T>`, `addService`, `add_XServicer_to_server`,
 * `extends XGrpc.XImplBase`): the service it serves, as written (`CartService`, or qualified when the code says).
 * Only a registration makes a server; a `.proto` file or generated stub does not.
 */
export interface GrpcServer {
  readonly service: string;
  /** NestJS `@GrpcMethod(service, method)`: the one method registered there. */
  readonly method?: string;
  readonly framework: string;
  readonly loc: Loc;
  /** C#: the implementation class a `MapGrpcService<T>()` names, resolved to its service once the source is read. */
  readonly implClass?: string;
}

/** A call of a gRPC method through a generated client (`pb.NewXClient(conn).M(…)`, `XStub(channel).M(…)`). */
export interface GrpcCall {
  readonly service: string;
  /** The method as the client writes it (`getAds`, `GetCartAsync` already without `Async`); `*` when unknown. */
  readonly method: string;
  /** The target address when the code gives it (`grpc.Dial(os.Getenv("CART_ADDR"))`); empty when unknown. */
  readonly address: readonly Part[];
  readonly client: string;
  readonly loc: Loc;
  /** The channel variable or field the client is built on, when its address is not in the client's file. */
  readonly channel?: string;
  /** A constructor that only looks like a gRPC client (no gRPC in its file): linked only when a server exists. */
  readonly weak?: boolean;
  /** A grpc-gateway registration (`RegisterXHandlerFromEndpoint`): every method, and the HTTP routes of the proto. */
  readonly gateway?: boolean;
}

/** A service declared by a `.proto` file or generated code (`"/pkg.Service/Method"`): names, never a server. */
export interface GrpcDecl {
  readonly package: string;
  readonly service: string;
  readonly methods: readonly {
    readonly name: string;
    readonly line: number;
    /** grpc-gateway's `option (google.api.http) = { get: "/v1/x" }`: the HTTP routes a gateway serves for it. */
    readonly http?: readonly { readonly method: HttpMethod; readonly path: string }[];
  }[];
  readonly file: string;
  /**
   * Declared by grpc-gateway's generated handlers (`x.pb.gw.go`): the methods the generated gateway forwards
   * (the `google.api.http` ones, and every one when it was generated with `generate_unbound_methods`).
   */
  readonly gateway?: boolean;
}

/**
 * A call of a message-bus method with message types: `bus.PublishAsync(new OrderPaid(…))` (the types
 * the argument creates) or `AddSubscription<OrderPaid, OrderPaidHandler>()` (the type arguments). What
 * the broker sees comes from the summary of the library method (any attached source), else from the
 * framework's convention (MassTransit: one exchange per message type).
 */
export interface BusSite {
  readonly kind: 'publish' | 'generic';
  readonly method: string;
  readonly types: readonly string[];
  readonly loc: Loc;
  /**
   * The branches of `if (bool.Parse(configuration["Key"]))` / `if (configuration.GetValue<bool>("Key"))` around
   * the site: it runs only when each key has the value `when` (a site whose key the source's settings set to
   * the other value everywhere is not deployed).
   */
  readonly guards?: readonly { readonly key: string; readonly when: boolean }[];
}

/**
 * A library method summarised once, instantiated at each call site in every source: `publish`: the
 * method publishes its argument to `exchange` with the argument's type name as routing key;
 * `subscribe`: the generic method registers its type argument `typeIndex`, whose name the library binds
 * `queue` to `exchange` with and consumes `queue` (a name with `${config}` placeholders resolved in the
 * calling source's configuration).
 */
export interface BusSummary {
  readonly kind: 'publish' | 'subscribe';
  readonly method: string;
  readonly broker: Broker;
  readonly exchange: string;
  readonly queue?: string;
  readonly typeIndex?: number;
  readonly loc: Loc;
}

/**
 * An interface whose methods carry HTTP route annotations (Micronaut `@Get("/x")`, Spring `@GetMapping`),
 * often in a shared `*-api` module: a controller implementing it serves those routes, a declarative
 * client extending it calls them.
 */
export interface ApiInterface {
  readonly name: string;
  readonly ops: readonly {
    readonly name: string;
    readonly method: HttpMethod;
    readonly path: string;
    readonly line: number;
  }[];
  readonly file: string;
}

/** The `ApiInterface` name of a source's OpenAPI document (its operations by `operationId`). */
export const OPENAPI_CONTRACT = '#openapi';

/** A controller implementing, or a declarative client extending, an interface of possibly another source. */
export interface ApiInterfaceUse {
  readonly kind: 'server' | 'client';
  readonly iface: string;
  /** The class's own path prefix (`@Controller("/p")`, `@Client(path = "/p")`). */
  readonly prefix: string;
  readonly framework: string;
  readonly serviceName?: string;
  readonly base?: readonly Part[];
  /** The class's methods by name, with their lines: an operation overridden with its own annotation is skipped. */
  readonly methods: Record<string, number>;
  readonly annotated: readonly string[];
  readonly loc: Loc;
}

/** A value a Go messaging package's method takes from its receiver's field, or a constant. */
export type GoRef = { readonly field: string } | { readonly lit: string };

/** An amqp091 call inside a Go package whose names come from the instance's fields (functional options). */
export interface GoBrokerUse {
  readonly pkg: string;
  readonly kind: 'publish' | 'consume' | 'bind' | 'exchange';
  readonly exchange?: GoRef | undefined;
  readonly key?: GoRef | undefined;
  readonly queue?: GoRef | undefined;
  readonly type?: string | undefined;
  readonly loc: Loc;
}

/**
 * A value of an object summary: parts where `{ ref: "\u0003p:<name>" }` is a parameter of the method,
 * `{ ref: "\u0003f:<name>" }` a field of the object (or a static field of the class) and a leading
 * `{ ref: "\u0003cfg" }` the application's configuration, the parts after it a section path
 * (`config.GetSection(name)["Exchange"]` = cfg, p:name, ":Exchange"). Bound at each instantiation.
 */
export type ObjValue = readonly Part[];

/** What running a method or constructor does, in order (ADR 0062). */
export type ObjEffect =
  | { readonly op: 'set'; readonly field: string; readonly value: ObjValue }
  /** A method of the same class (`Helper(x)`, `this.Connect()`), or `.ctor` for `: this(…)`. */
  | { readonly op: 'call'; readonly method: string; readonly args: readonly ObjValue[] }
  /** `new C(…)` (a DI registration's factory, a field's initialiser): an instance of a summarised class. */
  | { readonly op: 'new'; readonly cls: string; readonly args: readonly ObjValue[]; readonly field?: string }
  /** A publish: RabbitMQ (the default) by exchange and key; a named-channel broker (Kafka, Celery, …) by `key` alone. */
  | {
      readonly op: 'publish';
      readonly exchange: ObjValue;
      readonly key: ObjValue;
      readonly line: number;
      readonly broker?: Broker;
    }
  /** An HTTP call whose URL is built from the object's fields or the method's parameters (a client class). */
  | {
      readonly op: 'http';
      readonly method: HttpMethod;
      readonly url: ObjValue;
      readonly client: string;
      readonly line: number;
    }
  | {
      readonly op: 'bind';
      readonly queue: ObjValue;
      readonly exchange: ObjValue;
      readonly key: ObjValue;
      readonly line: number;
    }
  | { readonly op: 'consume'; readonly queue: ObjValue; readonly line: number }
  | { readonly op: 'exchange'; readonly name: ObjValue; readonly type: ExchangeType; readonly line: number };

export interface ObjMethod {
  readonly name: string;
  readonly params: readonly string[];
  /** Python: each parameter's default, for calls that leave it out (a keyword-only call, fewer arguments). */
  readonly defaults?: readonly (ObjValue | null)[];
  /** A static or extension method: callable without an instance (a registration helper). */
  readonly static?: boolean;
  readonly effects: readonly ObjEffect[];
}

/** A class summarised for instantiation at call sites in any source (C#: fields set by constructors, messaging calls). */
export interface ObjClass {
  readonly name: string;
  readonly file: string;
  readonly ctors: readonly ObjMethod[];
  readonly methods: readonly ObjMethod[];
  /**
   * Held by injection (a Spring bean): a call through a receiver declared of this type runs its methods
   * with no state, in a source that creates no instance of it.
   */
  readonly injected?: true;
}

/** A call `x.Name(args)` or creation `new Name(args)` (`isNew`) in a source: where summaries are instantiated. */
export interface ObjSite {
  readonly name: string;
  readonly isNew?: boolean;
  readonly args: readonly ObjValue[];
  /** Keyword arguments (Python), bound to the parameter of that name. */
  readonly named?: Readonly<Record<string, ObjValue>>;
  /**
   * The receiver's last name (`client` of `self.client.get(…)`) and, for a creation, the name it is assigned
   * to (`client = OrdersClient(…)`): a method call runs only the instances held by its receiver's name when
   * some are (absent in C#, whose sites run every instance of the class).
   */
  readonly receiver?: string;
  readonly assigned?: string;
  /** Java: the declared type of the receiver (`OrdersClient client`): only instances of that class. */
  readonly receiverType?: string;
  readonly loc: Loc;
}

export interface SourceFacts {
  readonly source: string;
  readonly files: number;
  readonly parsedFiles: number;
  readonly endpoints: Endpoint[];
  readonly calls: Call[];
  readonly publishes: Publish[];
  readonly consumes: Consume[];
  /** Dapr input binding components (`bindings.mqtt`, `bindings.kafka`, …), consumed by the apps they scope. */
  daprBindings?: DaprInputBinding[];
  readonly bindings: Binding[];
  readonly exchanges: ExchangeDecl[];
  readonly queues: QueueDecl[];
  readonly data: DataTouch[];
  readonly config: ConfigEntry[];
  readonly services: ServiceDecl[];
  /** The folder the source was read from (the CLI's argument): tells apart sources of one folder name. */
  readonly origin?: string;
  /** Base addresses of typed/named HTTP clients registered in this source, by class or client name. */
  readonly clientBases: Record<string, Part[]>;
  /** Constants visible across the source's files, by name (values already resolved within their file). */
  readonly constants: Record<string, Part[]>;
  readonly mounts: Mount[];
  /**
   * Prefixes applied to every endpoint of a framework (NestJS `setGlobalPrefix`); NestJS URI versioning
   * as `nestjs-uri-version` (its prefix, `v` by default) and `nestjs-default-version` (versions joined by `,`).
   */
  readonly globalPrefixes: { framework: string; prefix: string }[];
  /** gRPC (absent on facts stored before gRPC was extracted). */
  readonly grpcServers: GrpcServer[];
  readonly grpcCalls: GrpcCall[];
  readonly grpcDecls: GrpcDecl[];
  /** Names the source registers under in a service registry (Kratos `kratos.Name(…)`): host names of it. */
  registryNames?: Part[][];
  /** C# `class T : X.XBase`: implementation class → service, for `MapGrpcService<T>()` of another file. */
  readonly grpcImpls: Record<string, string>;
  /** Message-bus call sites and library summaries (absent on facts stored before they were extracted). */
  readonly busSites?: BusSite[];
  readonly busSummaries?: BusSummary[];
  /** C# types by name → the namespace declaring them (MassTransit names message exchanges `Namespace:Type`). */
  typeNamespaces?: Record<string, string>;
  /** C# classes by name → their first base type (`class OrdersClient : ApiClientBase`), while extracted (never stored). */
  typeBases?: Record<string, string>;
  /** C# classes by name → the `BaseAddress` their constructor sets (an HttpClient subclass), while extracted (never stored). */
  ctorBaseAddresses?: Record<string, Part[]>;
  /**
   * Addresses a program listens on, from its code (ASP.NET `UseUrls("http://*:5000")`, `ListenAnyIP(5000)`): a
   * machine address with that port names it (link.ts `listenPorts`).
   */
  listenUrls?: Part[][];
  /** ASP.NET `Properties/launchSettings.json`: each `Project` profile's `applicationUrl` (`dotnet run`'s addresses). */
  launchUrls?: string[];
  /** Angular DI providers (`{ provide: 'API_URL', useValue: '…' }`) by token as written, while extracted (never stored). */
  injectionValues?: { readonly token: string; readonly value: Part[] }[];
  /** C# types by name → the assembly (project) declaring them (EasyNetQ names exchanges `Namespace.Type, Assembly`). */
  typeAssemblies?: Record<string, string>;
  /** C# types by name → their file, while the source is extracted (becomes `typeAssemblies`; never stored). */
  typeFiles?: Record<string, string>;
  /** Go functions and methods (package, name, parameters, line span): calls inside them are summarised for importers. */
  goFuncs?: GoFunc[];
  /** Go net/rpc facts while the source is extracted (become calls and endpoints; never stored). */
  goRpc?: GoRpcFact[];
  /** Go calls of an exported function or method of an imported package (`eta.customer.Get(ctx, id)`). */
  goSites?: GoSite[];
  /** Go calls through a field bound in another file of the package, and the fields each file binds. */
  goFieldSites?: GoFieldSite[];
  goHolders?: GoHolder[];
  /** Go NATS calls whose subject is the enclosing function's parameter: a wrapper its callers instantiate. */
  goMessageUses?: GoMessageUse[];
  /** Go struct fields' decoding tags (`CreateOrder string \`json:"create_order"\``): the configuration key member. */
  goFieldTags?: Record<string, string>;
  /** Go struct fields of the package's own types (`CreateOrder *CreateOrderService`), for values its constructor sets. */
  goLocalFields?: { readonly pkg: string; readonly field: string; readonly type: string }[];
  /**
   * Go route tables (`var routes = Routes{Route{"GetProducts", "GET", "/products", h}}`, rows by their path and
   * method values) and the loops registering each row of one (`for _, r := range routes { sub.HandleFunc(r.Pattern, …) }`),
   * joined per package folder once the source is read.
   */
  goRouteTables?: { file: string; table: string; rows: { path: string; method?: HttpMethod; line: number }[] }[];
  goRouteLoops?: { file: string; table: string; prefix: string; framework: string; methods: boolean }[];
  /**
   * kafka-go writers kept in a map keyed by topic (`map[string]*kafka.Writer{"orders": kafka.NewWriter(…)}`, or
   * `writers["orders"] = kafka.NewWriter(…)`): the keys, and the lines declaring the writers (`go.ts`). A publish
   * helper that looks its topic up in such a map publishes only the topics that are keys; its callers are the
   * publishers, and the declarations stop being publishers.
   */
  goWriterMaps?: { file: string; start: number; end: number; keys: string[] }[];
  /** Go functions passed as arguments, for the prefixes the callee mounts them under (`go-packages.ts`). */
  goCallbacks?: GoCallback[];
  /** Go locals bound to another package's constructor call (`cfg := config.Load()`): `cfg.X` is that field. */
  goBound?: {
    readonly file: string;
    readonly name: string;
    readonly pkg: string;
    readonly ctor: GoCtorCall;
    readonly path?: string;
  }[];
  /** Go names declared with a type of an imported package (`usersvc user.Service`), the type by path. */
  goTyped?: { readonly name: string; readonly type: string }[];
  /** Go method calls on a variable or a call's result (`s.UserService().Find(ctx)`): `field` the name typed. */
  goTypedSites?: GoFieldSite[];
  /** Files read but not analysed, with the reason (a parse over its time budget, nesting too deep); shown in the report. */
  skippedFiles?: { path: string; reason: string }[];
  /**
   * ASP.NET `app.UsePathBase(configuration["PATH_BASE"])`: the settings whose deployed value is a path base
   * under which the service's routes are served too (absent on facts stored before it was extracted).
   */
  readonly pathBaseKeys?: string[];
  /**
   * Invocations on a receiver typed by a class or interface (`fraudClient.check(id)` with a field, constructor
   * parameter or local `FraudClient fraudClient`): where a declared client's methods are called.
   */
  typedInvocations?: { type: string; method: string; loc: Loc }[];
  /** Route-annotated interfaces and the classes using them (absent on facts stored before they were extracted). */
  apiInterfaces?: ApiInterface[];
  apiInterfaceUses?: ApiInterfaceUse[];
  /** Go functional options (`func ExchangeName(v) Option` sets a field), their uses and their configuring sites. */
  goOptions?: { pkg: string; name: string; field: string }[];
  goBrokerUses?: GoBrokerUse[];
  goOptionSites?: { pkg: string; values: { name: string; value: string }[]; loc: Loc }[];
  /** The source holds its own server configuration (a Dockerfile, an nginx configuration): it serves its pages. */
  ownServer?: boolean;
  /** Classes summarised for call-site instantiation, and the sites that may instantiate them (ADR 0062). */
  objClasses?: ObjClass[];
  objSites?: ObjSite[];
  /**
   * C# outbox (ADR 0062): a publish of a message whose type is rebuilt at run time from a stored name
   * (`Type.GetType(name)`), by the bus method it calls; the methods of its source that lead to saving a
   * message's type name into the outbox (`OutboxEntries`); and calls that pass created objects to a method
   * (`_dispatcher.SendAsync(new UserCreated(…))`), instantiated when the method is an outbox entry.
   */
  outboxPublishes?: { readonly method: string; readonly loc: Loc }[];
  outboxMethods?: { readonly name: string; readonly calls: readonly string[]; readonly saves?: true }[];
  outboxEntries?: string[];
  outboxSites?: { readonly name: string; readonly types: readonly string[]; readonly loc: Loc }[];
  /** String constants of the source's Java classes as `Type.NAME` (Eventuate Tram channels other sources name). */
  channelConstants?: Record<string, string>;
  /** JavaScript/TypeScript modules and npm packages, linked across sources (`js-flows.ts`). */
  jsModules?: JsModule[];
  jsPackages?: JsPackage[];
}

export function emptyFacts(source: string): SourceFacts {
  return {
    source,
    files: 0,
    parsedFiles: 0,
    endpoints: [],
    calls: [],
    publishes: [],
    consumes: [],
    bindings: [],
    exchanges: [],
    queues: [],
    data: [],
    config: [],
    services: [],
    clientBases: {},
    constants: {},
    mounts: [],
    globalPrefixes: [],
    grpcServers: [],
    grpcCalls: [],
    grpcDecls: [],
    grpcImpls: {},
    busSites: [],
    busSummaries: [],
  };
}
