import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LinkReport } from '../../src/domain/report';
import { reportOf } from '../support/in-memory-report';

/**
 * Issue 20, item 5: the report names what the database and the broker see. Shared data is keyed by the real
 * table name: an ORM's mapping (EF Core `ToTable`/`[Table]`, JPA `@Table`, Django `db_table`, SQLAlchemy
 * `__tablename__`, GORM `TableName()`) wins over a `DbSet` property or a JPQL entity name.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const stores = async (app: Record<string, Record<string, string>>): Promise<string[]> =>
  (await reportOf(app)).sharedData.map((d) => `${d.store}: ${d.touchedBy.map((e) => e.source).join(', ')}`);

describe('shared data uses the real table name', () => {
  it('EF Core: a DbSet is its entity’s ToTable (fluent, in Entity<T>(…) or an IEntityTypeConfiguration) or [Table] name', async () => {
    const found = await stores({
      'catalog-cs': {
        'CatalogContext.cs': lines(
          'public class CatalogContext : DbContext {',
          '  public DbSet<CatalogItem> CatalogItems { get; set; }',
          '  public DbSet<Basket> Baskets { get; set; }',
          '  public DbSet<Brand> Brands { get; set; }',
          '  protected override void OnModelCreating(ModelBuilder builder) {',
          '    builder.Entity<CatalogItem>().ToTable("Catalog");',
          '    builder.Entity<Brand>(b => { b.HasKey(x => x.Id); b.ToTable("catalog_brands"); });',
          '  }',
          '}',
        ),
        'Basket.cs': lines('[Table("customer_baskets")]', 'public class Basket { public int Id { get; set; } }'),
      },
      'ordering-cs': {
        'OrderingContext.cs': lines(
          'public class OrderingContext : DbContext {',
          '  public DbSet<OrderLine> Lines { get; set; }',
          '}',
        ),
        'OrderLineConfiguration.cs': lines(
          'class OrderLineConfiguration : IEntityTypeConfiguration<OrderLine> {',
          '  public void Configure(EntityTypeBuilder<OrderLine> lineConfiguration) {',
          '    lineConfiguration.ToTable("order_lines");',
          '  }',
          '}',
        ),
      },
      'reports-py': {
        'models.py': lines(
          'from sqlalchemy.orm import declarative_base',
          'Base = declarative_base()',
          'class Item(Base):',
          "    __tablename__ = 'catalog'",
          'class Basket(Base):',
          "    __tablename__ = 'customer_baskets'",
          'class Brand(Base):',
          "    __tablename__ = 'catalog_brands'",
          'class Line(Base):',
          "    __tablename__ = 'order_lines'",
          'class Lines(Base):',
          "    __tablename__ = 'lines'",
        ),
      },
    });
    expect(found).toEqual([
      'table `catalog_brands`: catalog-cs, reports-py',
      'table `catalog`: catalog-cs, reports-py',
      'table `customer_baskets`: catalog-cs, reports-py',
      // `Lines` is the DbSet's name, not its table: no store `lines` is shared with reports-py.
      'table `order_lines`: ordering-cs, reports-py',
    ]);
  });

  it('JPA: @Table names the table and a JPQL query names the entity, which is that table', async () => {
    const found = await stores({
      'customers-java': {
        'src/main/java/acme/Customer.java': lines(
          'package acme;',
          'import jakarta.persistence.*;',
          '@Entity',
          '@Table(name = "customer_accounts")',
          'public class Customer { @Id Long id; String email; }',
        ),
        'src/main/java/acme/CustomerRepository.java': lines(
          'package acme;',
          'public interface CustomerRepository extends JpaRepository<Customer, Long> {',
          '  @Query("SELECT c FROM Customer c WHERE c.email = :email")',
          '  Customer byEmail(String email);',
          '}',
        ),
      },
      'crm-py': {
        'crm/models.py': lines(
          'from django.db import models',
          'class Account(models.Model):',
          '    email = models.CharField(max_length=200)',
          '    class Meta:',
          "        db_table = 'customer_accounts'",
          'class Legacy(models.Model):',
          '    class Meta:',
          "        db_table = 'customer'",
        ),
      },
    });
    // Before: the JPQL entity `Customer` was a table `customer`, shared with the Django model's `customer`.
    expect(found).toEqual(['table `customer_accounts`: crm-py, customers-java']);
  });

  it('GORM: a model’s TableName() is its table', async () => {
    const found = await stores({
      'orders-go': {
        'models.go': lines(
          'package main',
          'type Order struct { ID uint }',
          'func (Order) TableName() string {',
          '\treturn "purchase_orders"',
          '}',
          'func (o *Line) TableName() string { return "purchase_order_lines" }',
        ),
      },
      'billing-py': {
        'models.py': lines(
          'class Order(Base):',
          "    __tablename__ = 'purchase_orders'",
          'class Line(Base):',
          "    __tablename__ = 'purchase_order_lines'",
        ),
      },
    });
    expect(found).toEqual([
      'table `purchase_order_lines`: billing-py, orders-go',
      'table `purchase_orders`: billing-py, orders-go',
    ]);
  });
});

describe('calls to deployed infrastructure', () => {
  it('are listed as unresolved `infrastructure`, with the component’s image, not as external hosts or missing routes', async () => {
    const r = await reportOf({
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  shop:',
          '    build: ../shop',
          '  catalog:',
          '    build: ../catalog',
          '  search:',
          '    image: docker.elastic.co/elasticsearch/elasticsearch:8.13.0',
          '  mail:',
          '    image: mailhog/mailhog:v1.0.1',
          '  rabbitmq:',
          '    image: rabbitmq:3-management',
        ),
      },
      shop: {
        'src/index.js': lines(
          "fetch('http://search:9200/products/_search', { method: 'POST' });",
          "fetch('http://mail:8025/api/v2/messages');",
          "fetch('http://rabbitmq:15672/api/queues');",
          "fetch('http://catalog:8080/items');",
          "fetch('https://api.stripe.com/v1/charges', { method: 'POST' });",
        ),
      },
      catalog: {
        'app.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          "@app.get('/items')",
          'def items(): return []',
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} → ${t.servedBy}`)).toEqual([
      'shop src/index.js:4 → catalog app.py:3 GET /items (flask)',
    ]);
    expect(r.unresolvedCalls.map((u) => `${u.caller.line} ${u.reason}: ${u.detail}`)).toEqual([
      '1 infrastructure: `search` is deployed infrastructure (`docker.elastic.co/elasticsearch/elasticsearch:8.13.0`), not a repository of this application',
      '2 infrastructure: `mail` is deployed infrastructure (`mailhog/mailhog:v1.0.1`), not a repository of this application',
      '3 infrastructure: `rabbitmq` is deployed infrastructure (`rabbitmq:3-management`), not a repository of this application',
      '5 external host: `api.stripe.com` is not a service of this application',
    ]);
    // On the service map they go to the external/infrastructure marker.
    expect(r.map!.edges.map((e) => `${e.from}>${e.to} ${e.label}`)).toContain('s3>external 4 external calls');
  });
});

describe('databases, SMTP and caches a service is configured to use', () => {
  it('are listed once per (service, component) at the setting, as `infrastructure`; brokers (modelled by flows) and secrets are not', async () => {
    const r = await reportOf({
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  shop:',
          '    build: ../shop',
          '    environment:',
          '      DATABASE_URL: postgres://app:s3cret-pw@db:5432/shop',
          '      SMTP_HOST: mail',
          '      RABBITMQ_URL: amqp://guest:guest@rabbitmq:5672',
          '  catalog:',
          '    build: ../catalog',
          '  db:',
          '    image: postgres:16',
          '  mail:',
          '    image: axllent/mailpit',
          '  cache:',
          '    image: redis:7-alpine',
          '  rabbitmq:',
          '    image: rabbitmq:3-management',
        ),
      },
      shop: { 'src/index.js': lines("fetch('http://catalog:8080/items');") },
      catalog: {
        'appsettings.json': JSON.stringify({
          ConnectionStrings: { Catalog: 'Host=db;Port=5432;Database=catalog;Username=app;Password=p4ss' },
          Redis: { Host: 'cache' },
        }),
        'app.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          "@app.get('/items')",
          'def items(): return []',
        ),
      },
    });
    expect(
      r.unresolvedCalls.map((u) => `${u.caller.source} ${u.caller.file} | ${u.calls} | ${u.reason}`).sort(),
    ).toEqual([
      'catalog appsettings.json | cache `cache` (`Redis:Host`) | infrastructure',
      'catalog appsettings.json | database `db` (`ConnectionStrings:Catalog`) | infrastructure',
      'shop deploy:docker-compose.yml | SMTP `mail` (`SMTP_HOST`) | infrastructure',
      'shop deploy:docker-compose.yml | database `db` (`DATABASE_URL`) | infrastructure',
    ]);
    expect(JSON.stringify(r)).not.toMatch(/s3cret-pw|p4ss/);
  });
});

describe('one row per (call site, target)', () => {
  it('no fixture application’s report lists a call site twice for one target (API or flow)', () => {
    const dir = join(__dirname, '../fixtures');
    const dupes: string[] = [];
    for (const app of readdirSync(dir)) {
      const file = join(dir, app, 'expected-report.json');
      if (!existsSync(file)) continue;
      const r = JSON.parse(readFileSync(file, 'utf8')) as LinkReport;
      const seen = new Set<string>();
      for (const row of r.table) {
        const key = `${row.caller} → ${row.servedBy}`;
        if (seen.has(key)) dupes.push(`${app}: ${key}`);
        seen.add(key);
      }
    }
    expect(dupes).toEqual([]);
  });
});
