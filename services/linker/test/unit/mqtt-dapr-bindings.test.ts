import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

// A sensor app publishes readings over MQTT in four client libraries; a Dapr `bindings.mqtt` component scoped to
// the `meter` app delivers each message of its topic as `POST /<component name>` to that app.
const sensors = {
  'Gateway/MqttSender.cs': `using MQTTnet;
public class MqttSender
{
    private IMqttClient _client;
    public async Task SendAsync(string json)
    {
        var msg = new MqttApplicationMessageBuilder()
            .WithTopic("plant/temperature")
            .WithPayload(json)
            .Build();
        await _client.PublishAsync(msg, CancellationToken.None);
    }
    public async Task SendPressureAsync(string json)
    {
        var msg = new MqttApplicationMessageBuilder().WithTopic("plant/pressure").Build();
        await _client.PublishAsync(msg);
    }
}
`,
  'web/paho-sender.js': `export class Sender {
  constructor(host, port) { this.client = new Paho.MQTT.Client(host, port, 'ui'); }
  send(reading) {
    const message = new Paho.MQTT.Message(JSON.stringify(reading));
    message.destinationName = 'plant/temperature';
    this.client.send(message);
  }
}
`,
  'node/publisher.js': `const mqtt = require('mqtt');
const client = mqtt.connect('mqtt://broker');
const TOPIC = 'plant/humidity';
client.publish(TOPIC, JSON.stringify({ v: 1 }));
`,
  'py/publisher.py': `import paho.mqtt.client as mqtt
client = mqtt.Client()
client.publish("plant/temperature", payload)
`,
};
const meter = {
  'Controllers/MeterController.cs': `[ApiController]
[Route("")]
public class MeterController : ControllerBase
{
    [HttpPost("temperature")]
    public IActionResult Temperature(Reading r) => Ok();
    [HttpPost("humidity")]
    public IActionResult Humidity(Reading r) => Ok();
}
`,
};
const audit = {
  'listener.py': `import paho.mqtt.client as mqtt
client = mqtt.Client()
client.subscribe([("plant/+", 0)])
`,
};
const component = (name: string, topic: string, scopes: string): string => `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: ${name}
spec:
  type: bindings.mqtt3
  version: v1
  metadata:
  - name: url
    value: mqtt://broker:1883
  - name: topic
    value: ${topic}
${scopes}`;
const deploy = {
  'components/temperature.yaml': component('temperature', 'plant/temperature', 'scopes:\n  - meter\n'),
  'components/humidity.yaml': component('humidity', 'plant/humidity', ''),
};

describe('MQTT publishers and Dapr input bindings', () => {
  it('each publish reaches the route POST /<component> of the scoped app, and a `+` subscription', async () => {
    const r = await reportOf({ sensors, meter, audit, deploy });
    expect(rows(r)).toEqual([
      'sensors Gateway/MqttSender.cs:11 | publish MQTT / `plant/temperature` | audit listener.py:3 consume MQTT topic `plant/+`',
      'sensors Gateway/MqttSender.cs:11 | publish MQTT / `plant/temperature` | meter Controllers/MeterController.cs:5 consume MQTT topic `plant/temperature`',
      'sensors Gateway/MqttSender.cs:16 | publish MQTT / `plant/pressure` | audit listener.py:3 consume MQTT topic `plant/+`',
      'sensors node/publisher.js:4 | publish MQTT / `plant/humidity` | audit listener.py:3 consume MQTT topic `plant/+`',
      'sensors node/publisher.js:4 | publish MQTT / `plant/humidity` | meter Controllers/MeterController.cs:7 consume MQTT topic `plant/humidity`',
      'sensors py/publisher.py:3 | publish MQTT / `plant/temperature` | audit listener.py:3 consume MQTT topic `plant/+`',
      'sensors py/publisher.py:3 | publish MQTT / `plant/temperature` | meter Controllers/MeterController.cs:5 consume MQTT topic `plant/temperature`',
      'sensors web/paho-sender.js:6 | publish MQTT / `plant/temperature` | audit listener.py:3 consume MQTT topic `plant/+`',
      'sensors web/paho-sender.js:6 | publish MQTT / `plant/temperature` | meter Controllers/MeterController.cs:5 consume MQTT topic `plant/temperature`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a component scoped to another app delivers nothing to this one', async () => {
    const other = {
      'components/temperature.yaml': component('temperature', 'plant/temperature', 'scopes:\n  - billing\n'),
    };
    const r = await reportOf({ sensors: { 'py/publisher.py': sensors['py/publisher.py'] }, meter, deploy: other });
    expect(rows(r)).toEqual([]);
    expect(gaps(r)).toEqual(['publisher sensors py/publisher.py:3 no consumer of MQTT topic `plant/temperature`']);
  });
});

describe('Dapr dead-letter topics', () => {
  const orders = {
    'Controllers/OrdersController.cs': `using Dapr;
[ApiController]
public class OrdersController : ControllerBase
{
    [Topic("pubsub", "orders", "orders-failed", false)]
    [HttpPost("orders")]
    public IActionResult Take(Order o) => Ok();

    [Topic("pubsub", "orders-failed")]
    [HttpPost("failed")]
    public IActionResult Failed(Order o) => Ok();

    [Topic("pubsub", "refunds", DeadLetterTopic = "refunds-dead")]
    [HttpPost("refunds")]
    public IActionResult Refund(Order o) => Ok();
}
`,
  };
  const shop = {
    'Checkout.cs': `using Dapr.Client;
public class Checkout
{
    public Task Run(DaprClient dapr) => dapr.PublishEventAsync("pubsub", "orders", new Order());
}
`,
  };

  it("a subscription's dead-letter topic is published by the runtime: its consumer is fed, an unconsumed one is no gap", async () => {
    const r = await reportOf({ orders, shop });
    expect(rows(r)).toEqual([
      'shop Checkout.cs:4 | publish Dapr / `orders` (pubsub `pubsub`) | orders Controllers/OrdersController.cs:5 consume Dapr topic `orders` (pubsub `pubsub`)',
    ]);
    expect(gaps(r)).toEqual([
      'consumer orders Controllers/OrdersController.cs:13 no producer for Dapr topic `pubsub/refunds`',
    ]);
  });

  it('a dead-letter topic of a declarative Subscription feeds the consumer in another app', async () => {
    const r = await reportOf({
      deploy: {
        'subscription.yaml': `apiVersion: dapr.io/v2alpha1
kind: Subscription
metadata:
  name: orders
spec:
  pubsubname: pubsub
  topic: orders
  routes:
    default: /orders
  deadLetterTopic: orders-failed
`,
      },
      audit: {
        'Failed.cs': `using Dapr;
public class FailedController : ControllerBase
{
    [Topic("pubsub", "orders-failed")]
    [HttpPost("failed")]
    public IActionResult Failed(Order o) => Ok();
}
`,
      },
    });
    expect(rows(r)).toEqual([
      'deploy subscription.yaml:10 | publish Dapr / `orders-failed` (pubsub `pubsub`) | audit Failed.cs:4 consume Dapr topic `orders-failed` (pubsub `pubsub`)',
    ]);
    expect(gaps(r)).toEqual(['consumer deploy subscription.yaml:7 no producer for Dapr topic `pubsub/orders`']);
  });
});
