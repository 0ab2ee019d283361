// Smoke test for the local broker, run by `scripts/engines/kafka.sh smoke` in Java's
// single-file source mode (java -cp '.infra/kafka/libs/*' KafkaSmoke.java BROKERS TOPIC).
// Creates the topic if needed, lists topics, produces one record with an idempotent
// producer and reads it back with a consumer group.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.*;

public class KafkaSmoke {
  public static void main(String[] args) throws Exception {
    String brokers = args.length > 0 ? args[0] : "127.0.0.1:9092";
    String topic = args.length > 1 ? args[1] : "engines-smoke";
    long t0 = System.nanoTime();

    Properties common = new Properties();
    common.put("bootstrap.servers", brokers);
    try (Admin admin = Admin.create(common)) {
      try {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        System.out.println("created topic " + topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) throw e;
        System.out.println("topic " + topic + " already exists");
      }
      System.out.println("topics: " + new TreeSet<>(admin.listTopics().names().get()));
    }

    String value = "hello-" + UUID.randomUUID();
    Properties p = new Properties();
    p.putAll(common);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (Producer<String, String> producer = new KafkaProducer<>(p)) {
      RecordMetadata md = producer.send(new ProducerRecord<>(topic, "k", value)).get();
      System.out.println("produced to " + md.topic() + "-" + md.partition() + "@" + md.offset());
    }

    Properties c = new Properties();
    c.putAll(common);
    c.put("group.id", "engines-smoke-" + UUID.randomUUID());
    c.put("auto.offset.reset", "earliest");
    c.put("key.deserializer", StringDeserializer.class.getName());
    c.put("value.deserializer", StringDeserializer.class.getName());
    try (Consumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + 30_000;
      while (System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          if (value.equals(r.value())) {
            System.out.printf("consumed %s at offset %d; smoke OK in %.1fs%n",
                r.value(), r.offset(), (System.nanoTime() - t0) / 1e9);
            return;
          }
        }
      }
    }
    System.err.println("smoke FAILED: record not consumed within 30s");
    System.exit(1);
  }
}
