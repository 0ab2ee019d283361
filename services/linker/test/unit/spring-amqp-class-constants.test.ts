import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

/**
 * Spring AMQP names given by `public static final String` constants of another class (`Topology.EXCHANGE`):
 * `rabbitTemplate.convertAndSend(Topology.EXCHANGE, Topology.KEY, msg)` and `@RabbitListener(queues =
 * Topology.QUEUE)`, resolved with the constants of the source's other files.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('Spring AMQP names from another class’s constants', () => {
  it('convertAndSend and @RabbitListener(queues = …) read constants of a config class; its @Bean bindings route them', async () => {
    const r = await reportOf({
      billing: {
        'src/main/java/billing/config/Topology.java': lines(
          'package billing.config;',
          'public class Topology {',
          '    public static final String EXCHANGE = "billing.exchange";',
          '    public static final String PAID_KEY = "invoice.paid";',
          '    public static final String VOID_KEY = "invoice.void";',
          '}',
        ),
        'src/main/java/billing/Invoices.java': lines(
          'package billing;',
          'import billing.config.Topology;',
          'public class Invoices {',
          '    private final RabbitTemplate rabbitTemplate;',
          '    public void paid(Invoice i) {',
          '        rabbitTemplate.convertAndSend(Topology.EXCHANGE, Topology.PAID_KEY, i);',
          '    }',
          '    public void voided(Invoice i) {',
          '        rabbitTemplate.convertAndSend(',
          '                Topology.EXCHANGE,',
          '                Topology.VOID_KEY,',
          '                i);',
          '    }',
          '}',
        ),
      },
      ledger: {
        'src/main/java/ledger/config/LedgerQueues.java': lines(
          'package ledger.config;',
          '@Configuration',
          'public class LedgerQueues {',
          '    public static final String EXCHANGE = "billing.exchange";',
          '    public static final String PAID_QUEUE = "ledger.paid";',
          '    public static final String AUDIT_QUEUE = "ledger.audit";',
          '    public static final String PAID_KEY = "invoice.paid";',
          '    @Bean public TopicExchange billingExchange() { return new TopicExchange(EXCHANGE); }',
          '    @Bean public Queue paidQueue() { return new Queue(PAID_QUEUE, true); }',
          '    @Bean public Queue auditQueue() { return new Queue(AUDIT_QUEUE, true); }',
          '    @Bean public Binding paidBinding() {',
          '        return BindingBuilder.bind(paidQueue()).to(billingExchange()).with(PAID_KEY);',
          '    }',
          '}',
        ),
        'src/main/java/ledger/PaidListener.java': lines(
          'package ledger;',
          'import ledger.config.LedgerQueues;',
          'public class PaidListener {',
          '    @RabbitListener(queues = LedgerQueues.PAID_QUEUE)',
          '    public void on(Invoice i) {}',
          '    @RabbitListener(queues = {LedgerQueues.AUDIT_QUEUE, "ledger.manual"})',
          '    public void audit(Invoice i) {}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing src/main/java/billing/Invoices.java:6 | publish `billing.exchange` / `invoice.paid` | ledger src/main/java/ledger/PaidListener.java:4 consume queue `ledger.paid`',
    ]);
    // The other constants resolve too: a key nothing binds, a queue nothing feeds, a literal queue beside a constant.
    expect(gaps(r)).toEqual([
      'publisher billing src/main/java/billing/Invoices.java:9 no binding routes `billing.exchange` / `invoice.void` to a queue',
      'consumer ledger src/main/java/ledger/PaidListener.java:6 no publisher routes to queue `ledger.audit`',
      'consumer ledger src/main/java/ledger/PaidListener.java:6 queue `ledger.manual` is bound to no exchange',
    ]);
  });
});
