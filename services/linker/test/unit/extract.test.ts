import { describe, expect, it } from 'vitest';
import { extractSource, type SourceFile } from '../../src/domain/extract/index';
import type { SourceFacts } from '../../src/domain/model';

/** Facts of an in-memory source: path → text. */
function extract(files: Record<string, string>): Promise<SourceFacts> {
  const list: SourceFile[] = Object.entries(files).map(([path, text]) => ({ path, read: () => Promise.resolve(text) }));
  return extractSource('repo', list);
}

const data = (f: SourceFacts): string[] => f.data.map((d) => `${d.kind} ${d.name} ${d.loc.file}:${d.loc.line}`);

describe('extraction of constructs beyond the fixture applications', () => {
  it('data stores: knex, mongoose, SQLAlchemy, Django, EF Core, JPA without @Table, Mongo drivers', async () => {
    const f = await extract({
      'a.ts': "const rows = await knex('invoices').where({ id });\nconst User = mongoose.model('User', schema);\n",
      'm.py': 'class Order(Base):\n    __tablename__ = "orders"\n\nclass Meta:\n    db_table = "legacy_orders"\n',
      'Ctx.cs':
        'public class Ctx : DbContext {\n  protected override void OnModelCreating(ModelBuilder b) { b.Entity<Line>().ToTable("order_lines"); }\n}\n[Table("payments")]\npublic class Payment {}\nvar c = db.GetCollection<Event>("events");\n',
      'Customer.java': '@Entity\npublic class Customer {}\nclass R { void r() { db.getCollection("audit"); } }\n',
    });
    expect(data(f).sort()).toEqual(
      [
        'collection audit Customer.java:3',
        'collection events Ctx.cs:6',
        'collection users a.ts:2',
        'table customer Customer.java:1',
        'table invoices a.ts:1',
        'table legacy_orders m.py:5',
        'table order_lines Ctx.cs:2',
        'table orders m.py:2',
        'table payments Ctx.cs:4',
      ].sort(),
    );
  });

  it('Spring AMQP builders and Binding constructors, Kafka ProducerRecord and kafka-python/confluent producers', async () => {
    const f = await extract({
      'Config.java': [
        'class Config {',
        '  @Bean Queue q() { return QueueBuilder.durable("invoices").build(); }',
        '  @Bean TopicExchange x() { return ExchangeBuilder.topicExchange("billing").build(); }',
        '  @Bean Binding b() { return BindingBuilder.bind(q()).to(x()).with("invoice.*"); }',
        '  @Bean Binding legacy() { return new Binding("archive", Binding.DestinationType.QUEUE, "billing", "#", null); }',
        '  void send() { producer.send(new ProducerRecord<>("ledger", key, value)); }',
        '}',
      ].join('\n'),
      'p.py': 'producer.send("clicks", b"x")\nproducer.produce("views", value=b"x")\n',
    });
    expect(f.queues.map((q) => q.name)).toEqual(['invoices']);
    expect(f.exchanges.map((x) => [x.name, x.type])).toEqual([['billing', 'topic']]);
    expect(f.bindings.map((b) => [b.exchange, b.queue, b.key, b.loc.line])).toEqual([
      ['billing', 'archive', '#', 5],
      ['billing', 'invoices', 'invoice.*', 4],
    ]);
    expect(f.publishes.map((p) => `${p.broker} ${p.key} ${p.loc.file}:${p.loc.line}`).sort()).toEqual(
      ['kafka clicks p.py:1', 'kafka ledger Config.java:6', 'kafka views p.py:2'].sort(),
    );
  });

  it('endpoints: Go 1.22 patterns, chi sub-routes, gin groups, Fastify route(), NestJS @All, FastAPI api_route', async () => {
    const f = await extract({
      'main.go': [
        'package main',
        'func main() {',
        '\tmux := http.NewServeMux()',
        '\tmux.HandleFunc("DELETE /carts/{id}", del)',
        '\tr := chi.NewRouter()',
        '\tr.Route("/v1", func(r chi.Router) {',
        '\t\tr.Route("/users", func(r chi.Router) { r.Put("/{id}", put) })',
        '\t})',
        '\tg := gin.New()',
        '\tadmin := g.Group("/admin")',
        '\tadmin.PATCH("/flags/:name", patch)',
        '}',
      ].join('\n'),
      'app.js': "fastify.route({ method: 'PUT', url: '/things/:id', handler });\n",
      'c.ts': "@Controller('hooks')\nexport class H {\n  @All('*')\n  any() {}\n}\n",
      'api.py': '@app.api_route("/echo", methods=["GET", "POST"])\ndef echo():\n    pass\n',
    });
    expect(f.endpoints.map((e) => `${e.method} ${e.path} ${e.framework}`).sort()).toEqual(
      [
        'DELETE /carts/{id} net/http',
        'PUT /v1/users/{id} chi',
        'PATCH /admin/flags/:name gin',
        'PUT /things/:id fastify',
        'ANY /hooks/* nestjs',
        'GET /echo fastapi',
        'POST /echo fastapi',
      ].sort(),
    );
  });

  it('calls: env getters in every language, named HttpClient, WebClient.create, got.extend, requests.Session', async () => {
    const f = await extract({
      'a.ts': "const api = got.extend({ prefixUrl: process.env['API_URL'] });\napi.get('items');\n",
      'B.cs': 'var http = factory.CreateClient("billing");\nawait http.GetAsync("invoices/" + id);\n',
      'C.java':
        'class C { WebClient w = WebClient.create(System.getenv("PAY_URL")); void f() { w.post().uri("/pay"); } }\n',
      'd.py': 's = requests.Session()\ns.delete(os.environ["D_URL"] + "/x")\n',
      'e.go': 'package e\nfunc f() { http.Post(os.Getenv("E_URL")+"/e", "application/json", nil) }\n',
    });
    const calls = f.calls.map(
      (c) => `${c.method} ${JSON.stringify(c.url)}${c.clientClass ? ` class=${c.clientClass}` : ''}`,
    );
    expect(calls.sort()).toEqual(
      [
        'GET [{"env":"API_URL"},{"lit":"/items"}]',
        'GET [{"lit":"invoices/"},{"ref":"id"}] class=billing',
        'POST [{"env":"PAY_URL"},{"lit":"//pay"}]',
        'DELETE [{"env":"D_URL"},{"lit":"/x"}]',
        'POST [{"env":"E_URL"},{"lit":"/e"}]',
      ].sort(),
    );
  });
});

describe('hostile identifiers', () => {
  it('names of Object.prototype members never resolve as constants', async () => {
    const f = await extract({
      'a.ts':
        'export async function f() {\n  await fetch(`${constructor}/x`);\n  await fetch(toString + "/y");\n}\nconst __proto__ = "http://evil";\n',
      'B.cs': 'class constructor { Task G() => _http.GetAsync("z"); }\n',
    });
    expect(f.calls.map((c) => JSON.stringify(c.url))).toEqual([
      '[{"ref":"constructor"},{"lit":"/x"}]',
      '[{"ref":"toString"},{"lit":"/y"}]',
      '[{"lit":"z"}]',
    ]);
  });
});

describe('configuration files named after a service', () => {
  it('keep their base name as scope; OpenAPI documents and large YAML files are not configuration', async () => {
    const { extractSource: extractOne } = await import('../../src/domain/extract/index');
    const files: Record<string, string> = {
      'shared/orders.yml': 'server:\n  servlet:\n    context-path: /orders\n',
      'src/main/resources/application.yml': 'spring:\n  application:\n    name: config\n',
      'api/orders-api.yml': 'openapi: 3.0.0\npaths:\n  /orders:\n    get: {}\n',
      'data/big.yml': Array.from({ length: 500 }, (_, i) => `k${i}: v`).join('\n') + '\n',
    };
    const f = await extractOne(
      'config',
      Object.entries(files).map(([path, text]) => ({ path, read: () => Promise.resolve(text) })),
    );
    expect(f.config.map((c) => `${c.scope ?? '-'} ${c.key}=${c.value}`)).toEqual([
      'orders server.servlet.context-path=/orders',
      '- spring.application.name=config',
    ]);
  });
});
