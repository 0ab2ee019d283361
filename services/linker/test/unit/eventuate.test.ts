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

  it('saga commands: a step invoking a proxy’s CommandEndpoint, send(new X(…)).to(channel) and CommandProducer.send reach the SagaCommandHandlersBuilder.fromChannel handlers that take that command, with channels named by constants of an -api source', async () => {
    const api = {
      'src/main/java/com/acme/kitchen/api/KitchenChannels.java': lines(
        'package com.acme.kitchen.api;',
        'public class KitchenChannels {',
        '  public static final String COMMAND_CHANNEL = "kitchenService";',
        '}',
      ),
    };
    const kitchen = {
      'src/main/java/com/acme/kitchen/KitchenCommandHandler.java': lines(
        'package com.acme.kitchen;',
        'import com.acme.kitchen.api.KitchenChannels;',
        'import io.eventuate.tram.sagas.participant.SagaCommandHandlersBuilder;',
        'public class KitchenCommandHandler {',
        '  public CommandHandlers commandHandlers() {',
        '    return SagaCommandHandlersBuilder',
        '            .fromChannel(KitchenChannels.COMMAND_CHANNEL)',
        '            .onMessage(CreateTicket.class, this::createTicket)',
        '            .onMessage(CancelTicket.class, this::cancelTicket)',
        '            .build();',
        '  }',
        '}',
      ),
    };
    const order = {
      'src/main/java/com/acme/order/KitchenProxy.java': lines(
        'package com.acme.order;',
        'import io.eventuate.tram.sagas.simpledsl.CommandEndpoint;',
        'import io.eventuate.tram.sagas.simpledsl.CommandEndpointBuilder;',
        'import com.acme.kitchen.api.*;',
        'public class KitchenProxy {',
        '  public final CommandEndpoint<CreateTicket> create = CommandEndpointBuilder',
        '          .forCommand(CreateTicket.class)',
        '          .withChannel(KitchenChannels.COMMAND_CHANNEL)',
        '          .withReply(CreateTicketReply.class)',
        '          .build();',
        '}',
      ),
      'src/main/java/com/acme/order/CreateOrderSaga.java': lines(
        'package com.acme.order;',
        'public class CreateOrderSaga implements SimpleSaga<State> {',
        '  private SagaDefinition<State> sagaDefinition;',
        '  public CreateOrderSaga(KitchenProxy kitchenService) {',
        '    this.sagaDefinition = step()',
        '        .invokeParticipant(kitchenService.create, State::makeCreateTicket)',
        '        .step()',
        '        .invokeParticipant(this::cancel)',
        '        .build();',
        '  }',
        '  private CommandWithDestination cancel(State data) {',
        '    return send(new CancelTicket(data.getOrderId()))',
        '            .to(KitchenChannels.COMMAND_CHANNEL)',
        '            .build();',
        '  }',
        '}',
      ),
      'src/main/java/com/acme/order/Notifier.java': lines(
        'package com.acme.order;',
        'import io.eventuate.tram.commands.producer.CommandProducer;',
        'public class Notifier {',
        '  private CommandProducer commandProducer;',
        '  public void notify(long id) {',
        '    commandProducer.send("kitchenService", new RefundTicket(id), "replies", Collections.emptyMap());',
        '  }',
        '}',
      ),
    };
    const r = await reportOf({ 'kitchen-api': api, kitchen, order });
    const handler =
      'kitchen src/main/java/com/acme/kitchen/KitchenCommandHandler.java:7 consume Kafka topic `kitchenService`';
    expect(rows(r)).toEqual([
      `order src/main/java/com/acme/order/CreateOrderSaga.java:6 | produce Kafka topic \`kitchenService\` | ${handler}`,
      `order src/main/java/com/acme/order/CreateOrderSaga.java:12 | produce Kafka topic \`kitchenService\` | ${handler}`,
    ]);
    // RefundTicket: a command the channel's handlers do not take.
    expect(gaps(r)).toEqual([
      'publisher order src/main/java/com/acme/order/Notifier.java:6 no consumer of Kafka topic `kitchenService` handles `RefundTicket`',
    ]);
  });

  it('one builder subscribing to two aggregates (andForAggregateType) named by constants of another source; a publish of a List<…> of events names none, so each subscription of its topic gets it', async () => {
    const r = await reportOf({
      'kitchen-api': {
        'src/main/java/com/acme/kitchen/api/KitchenChannels.java': lines(
          'package com.acme.kitchen.api;',
          'public class KitchenChannels {',
          '  public static final String TICKET_EVENT_CHANNEL = "com.acme.kitchen.domain.Ticket";',
          '  public static final String MENU_EVENT_CHANNEL = "com.acme.kitchen.domain.Menu";',
          '}',
        ),
      },
      kitchen: {
        'src/main/java/com/acme/kitchen/domain/Ticket.java': lines(
          'package com.acme.kitchen.domain;',
          'public class Ticket {}',
        ),
        'src/main/java/com/acme/kitchen/domain/KitchenService.java': lines(
          'package com.acme.kitchen.domain;',
          'import io.eventuate.tram.events.publisher.DomainEventPublisher;',
          'public class KitchenService {',
          '  private DomainEventPublisher domainEventPublisher;',
          '  public void accept(Ticket ticket) {',
          '    List<TicketDomainEvent> events = ticket.accept();',
          '    domainEventPublisher.publish(Ticket.class, ticket.getId(), events);',
          '  }',
          '}',
        ),
      },
      delivery: {
        'src/main/java/com/acme/delivery/Handlers.java': lines(
          'package com.acme.delivery;',
          'import io.eventuate.tram.events.subscriber.DomainEventHandlersBuilder;',
          'public class Handlers {',
          '  public DomainEventHandlers domainEventHandlers() {',
          '    return DomainEventHandlersBuilder',
          '            .forAggregateType(KitchenChannels.MENU_EVENT_CHANNEL)',
          '            .onEvent(MenuRevised.class, this::revised)',
          '            .andForAggregateType(KitchenChannels.TICKET_EVENT_CHANNEL)',
          '            .onEvent(TicketAcceptedEvent.class, this::accepted)',
          '            .build();',
          '  }',
          '}',
        ),
      },
    });
    const topic = 'Kafka topic `com.acme.kitchen.domain.Ticket`';
    expect(rows(r)).toEqual([
      `kitchen src/main/java/com/acme/kitchen/domain/KitchenService.java:7 | produce ${topic} | delivery src/main/java/com/acme/delivery/Handlers.java:8 consume ${topic}`,
    ]);
    expect(gaps(r)).toEqual([
      'consumer delivery src/main/java/com/acme/delivery/Handlers.java:6 no producer for Kafka topic `com.acme.kitchen.domain.Menu`',
    ]);
  });
});
