import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

/**
 * Eventuate Tram domain events: the channel is the aggregate type's full class name (a Kafka topic with the
 * default transport). Each snippet is written here the way such services are written.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const orders = {
  'orders-domain/src/main/java/com/acme/orders/domain/Order.java': lines(
    'package com.acme.orders.domain;',
    'import io.eventuate.tram.events.publisher.ResultWithTypedEvents;',
    'public class Order { }',
  ),
  'orders-domain/src/main/java/com/acme/orders/domain/OrderEventPublisher.java': lines(
    'package com.acme.orders.domain;',
    'import io.eventuate.tram.events.aggregates.DomainEventPublisherForAggregate;',
    'public interface OrderEventPublisher extends DomainEventPublisherForAggregate<Order, Long, OrderEvent> { }',
  ),
  'orders-publishing/src/main/java/com/acme/orders/publishing/OrderEventPublisherImpl.java': lines(
    'package com.acme.orders.publishing;',
    'import com.acme.orders.domain.Order;',
    'import com.acme.orders.domain.OrderEvent;',
    'import com.acme.orders.domain.OrderEventPublisher;',
    'import io.eventuate.tram.events.aggregates.AbstractDomainEventPublisherForAggregateImpl;',
    'public class OrderEventPublisherImpl',
    '    extends AbstractDomainEventPublisherForAggregateImpl<Order, Long, OrderEvent>',
    '    implements OrderEventPublisher {',
    '  public OrderEventPublisherImpl(DomainEventPublisher p) { super(Order.class, Order::getId, p, OrderEvent.class); }',
    '}',
  ),
  'orders-domain/src/main/java/com/acme/orders/domain/OrderService.java': lines(
    'package com.acme.orders.domain;',
    'public class OrderService {',
    '  private final OrderEventPublisher orderEventPublisher;',
    '  public OrderService(OrderEventPublisher orderEventPublisher) { this.orderEventPublisher = orderEventPublisher; }',
    '  public void approve(Order order) {',
    '    orderEventPublisher.publish(order, new OrderApprovedEvent());',
    '  }',
    '  public void reject(Order order) {',
    '    OrderRejectedEvent rejected = new OrderRejectedEvent();',
    '    orderEventPublisher.publish(order, rejected);',
    '  }',
    '  public void create(ResultWithTypedEvents<Order, OrderEvent> created) {',
    '    orderEventPublisher.publish(created.getResult(), created.getEvents());',
    '  }',
    '}',
  ),
  // A Gradle test source set: its publishes are no application traffic.
  'orders-publishing/src/contractTest/java/com/acme/orders/publishing/OrdersBase.java': lines(
    'package com.acme.orders.publishing;',
    'public class OrdersBase {',
    '  private OrderEventPublisher orderEventPublisher;',
    '  public void send() { orderEventPublisher.publish(new Order(), new OrderApprovedEvent()); }',
    '}',
  ),
};

const billing = {
  'src/main/java/com/acme/billing/OrderEventConsumer.java': lines(
    'package com.acme.billing;',
    'import io.eventuate.tram.events.subscriber.annotations.EventuateDomainEventHandler;',
    'public class OrderEventConsumer {',
    '  @EventuateDomainEventHandler(subscriberId = "billing", channel = "com.acme.orders.domain.Order")',
    '  public void approved(DomainEventEnvelope<OrderApprovedEvent> e) { }',
    '  @EventuateDomainEventHandler(subscriberId = "billing", channel = "com.acme.orders.domain.Order")',
    '  public void cancelled(DomainEventEnvelope<OrderCancelledEvent> e) { }',
    '}',
  ),
  'src/main/java/com/acme/billing/InvoiceService.java': lines(
    'package com.acme.billing;',
    'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
    'public class InvoiceService {',
    '  private DomainEventPublisher domainEventPublisher;',
    '  public void issue(long id) {',
    '    domainEventPublisher.publish(Invoice.class, id, java.util.List.of(new InvoiceIssued()));',
    '  }',
    '}',
  ),
  'src/main/java/com/acme/billing/Invoice.java': lines('package com.acme.billing;', 'public class Invoice { }'),
};

const history = {
  'src/main/java/com/acme/history/Handlers.java': lines(
    'package com.acme.history;',
    'import io.eventuate.tram.events.subscriber.DomainEventHandlersBuilder;',
    'public class Handlers {',
    '  private static final String INVOICES = "com.acme.billing.Invoice";',
    '  public DomainEventHandlers orders() {',
    '    return DomainEventHandlersBuilder',
    '      .forAggregateType("com.acme.orders.domain.Order")',
    '      .onEvent(OrderApprovedEvent.class, this::approved).build();',
    '  }',
    '  public DomainEventHandlers invoices() {',
    '    return DomainEventHandlersBuilder.forAggregateType(INVOICES).onEvent(InvoiceIssued.class, this::h).build();',
    '  }',
    '}',
  ),
};

describe('Eventuate Tram domain events', () => {
  it('a publish through an aggregate publisher (its interface injected elsewhere) or DomainEventPublisher.publish(X.class) reaches the subscribers of the aggregate’s full class name whose handlers take one of its event types (all of them when the site does not name its events): one row per call site and subscriber; a contract-test source set is not read', async () => {
    const r = await reportOf({ orders, billing, history });
    // OrderApprovedEvent: both subscriptions handle it; OrderRejectedEvent (a variable of that class): neither
    // does; the events of a result (`getEvents()`) are not named, so every subscription of the topic gets them.
    const order = 'orders orders-domain/src/main/java/com/acme/orders/domain/OrderService.java';
    const topic = 'Kafka topic `com.acme.orders.domain.Order`';
    expect(rows(r)).toEqual([
      'billing src/main/java/com/acme/billing/InvoiceService.java:6 | produce Kafka topic `com.acme.billing.Invoice` | history src/main/java/com/acme/history/Handlers.java:11 consume Kafka topic `com.acme.billing.Invoice`',
      `${order}:6 | produce ${topic} | billing src/main/java/com/acme/billing/OrderEventConsumer.java:4 consume ${topic}`,
      `${order}:6 | produce ${topic} | history src/main/java/com/acme/history/Handlers.java:7 consume ${topic}`,
      `${order}:13 | produce ${topic} | billing src/main/java/com/acme/billing/OrderEventConsumer.java:4 consume ${topic}`,
      `${order}:13 | produce ${topic} | history src/main/java/com/acme/history/Handlers.java:7 consume ${topic}`,
    ]);
    expect(gaps(r)).toEqual([`publisher ${order}:10 no consumer of ${topic} handles \`OrderRejectedEvent\``]);
  });
});
