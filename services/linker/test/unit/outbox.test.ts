import { describe, expect, it } from 'vitest';
import { gaps, reportOf } from '../support/in-memory-report';

// A shared library (a folder of its own) with a database outbox: a message is saved with its type's name and
// published later, its type rebuilt from that name. Services hand created messages to the dispatcher.
const lib = {
  'Outbox/OutboxProcessor.cs': `namespace Shop.Lib.Outbox;

using MassTransit;

public class OutboxProcessor : IOutboxProcessor
{
    private readonly OutboxDbContext _db;
    private readonly IPublishEndpoint _publishEndpoint;

    public async Task PublishMessageAsync(MessageEnvelope envelope, CancellationToken ct = default)
    {
        await SaveAsync(envelope, DeliveryType.Outbox, ct);
    }

    public Task AddReceivedMessageAsync(MessageEnvelope envelope, CancellationToken ct = default)
    {
        return SaveAsync(envelope, DeliveryType.Inbox, ct);
    }

    private async Task SaveAsync(MessageEnvelope envelope, DeliveryType type, CancellationToken ct)
    {
        await _db.Messages.AddAsync(new OutboxMessage(envelope.Message.GetType().ToString(), Serialize(envelope), type), ct);
        await _db.SaveChangesAsync(ct);
    }

    private async Task ProcessOutboxAsync(OutboxMessage message, CancellationToken ct)
    {
        var data = JsonSerializer.Deserialize(message.Data, Type.GetType(message.DataType));
        await _publishEndpoint.Publish(data, ct);
    }
}
`,
  'Events/EventDispatcher.cs': `namespace Shop.Lib.Events;

public sealed class EventDispatcher(IOutboxProcessor outbox) : IEventDispatcher
{
    public async Task SendAsync<T>(T @event, CancellationToken ct = default) where T : IEvent
    {
        await outbox.PublishMessageAsync(new MessageEnvelope(@event), ct);
    }
}
`,
  'Filters/ConsumeFilter.cs': `namespace Shop.Lib.Filters;

public class ConsumeFilter<T>(IOutboxProcessor outbox) : IFilter<ConsumeContext<T>>
{
    public async Task Send(ConsumeContext<T> context, IPipe<ConsumeContext<T>> next)
    {
        await outbox.AddReceivedMessageAsync(new MessageEnvelope(context.Message));
        await next.Send(context);
    }
}
`,
  'Contracts/UserCreated.cs': `namespace Shop.Contracts;

public record UserCreated(Guid Id, string Name) : IIntegrationEvent;
`,
};

const identity = {
  'Users/RegisterUser.cs': `namespace Identity.Users;

using Shop.Contracts;

public class RegisterUserHandler
{
    private readonly IEventDispatcher _eventDispatcher;
    private readonly IMediator _mediator;

    public async Task Handle(RegisterUser command, CancellationToken ct)
    {
        await _eventDispatcher.SendAsync(new UserCreated(command.Id, command.Name), cancellationToken: ct);
        await _eventDispatcher.SendAsync(new UserRegisteredDomainEvent(command.Id));
        await _mediator.Send(new AuditUser(command.Id));
    }
}
`,
};

const passenger = {
  'Consumers/UserCreatedConsumer.cs': `namespace Passenger.Consumers;

using MassTransit;
using Shop.Contracts;

public class RegisterNewUserHandler : IConsumer<UserCreated>
{
    public Task Consume(ConsumeContext<UserCreated> context) => Task.CompletedTask;
}
`,
};

describe('C# outbox: what is saved is what is published', () => {
  it("a created message handed to the outbox's entry is published with its type; the outbox's own run-time publish is no gap", async () => {
    const r = await reportOf({ identity, lib, passenger });
    expect(r.table.map((t) => `${t.caller} | ${t.calls} | ${t.servedBy}`)).toEqual([
      'identity Users/RegisterUser.cs:12 | publish `Shop.Contracts:UserCreated` | passenger Consumers/UserCreatedConsumer.cs:6 consume queue `RegisterNewUserHandler`',
    ]);
    // A domain event stays in the process; the mediator's Send and the inbox's entry (ConsumeFilter.Send) are
    // no outbox; the library's own hand-off of a run-time message is not a site.
    expect(gaps(r)).toEqual([]);
  });

  it('without the outbox library the hand-off is nothing', async () => {
    const r = await reportOf({ identity, passenger });
    expect(r.table).toEqual([]);
  });
});
