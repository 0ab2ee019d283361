export { KafkaBus } from './kafka-bus';
export type { AdapterLog, KafkaBusOptions, TopicSpec } from './kafka-bus';
