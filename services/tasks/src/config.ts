import { EnvReader, type Env } from '@a2a-inbound/config';
import type { TaskServiceConfig } from './domain/task-service';
import { DEFAULT_TASK_CONFIG } from './domain/task-service';

export interface TasksConfig {
  grpcHost: string;
  grpcPort: number;
  seedDemo: boolean;
  sweepIntervalMs: number;
  task: TaskServiceConfig;
}

export function loadTasksConfig(env: Env): TasksConfig {
  const r = new EnvReader(env);
  const config: TasksConfig = {
    grpcHost: r.string('TASKS_GRPC_HOST', '127.0.0.1'),
    grpcPort: r.int('TASKS_GRPC_PORT', 50051, { min: 0, max: 65535 }),
    seedDemo: r.bool('SEED_DEMO', true),
    sweepIntervalMs: r.int('TASKS_SWEEP_INTERVAL_MS', 5_000, { min: 100 }),
    task: {
      runTimeoutMs: r.int('RUN_TIMEOUT_MS', DEFAULT_TASK_CONFIG.runTimeoutMs, { min: 1_000 }),
      runStallMs: r.int('RUN_STALL_MS', DEFAULT_TASK_CONFIG.runStallMs, { min: 1_000 }),
      memoryMessages: r.int('CONTEXT_MEMORY_MESSAGES', DEFAULT_TASK_CONFIG.memoryMessages, { min: 0, max: 1000 }),
      retentionMs: r.int('TASK_RETENTION_MS', DEFAULT_TASK_CONFIG.retentionMs, { min: 60_000 }),
      maxHistory: r.int('TASK_MAX_HISTORY', DEFAULT_TASK_CONFIG.maxHistory, { min: 10 }),
    },
  };
  r.done();
  return config;
}
