// Front door of the tasks package: what the embedded mode, the system tests and tooling may import.
export { startTasksApp, type TasksApp, type TasksDeps } from './app';
export { loadTasksConfig, type TasksConfig } from './config';
export { createAdminUser } from './domain/bootstrap';
// The domain's pieces, for benchmarks that drive the task service against a real store without gRPC.
export { ControlPlane, openControlCollections } from './domain/control-plane';
export { DEMO, seedDemo } from './domain/seed';
export { DEFAULT_TASK_CONFIG, openTaskCollections, TaskService } from './domain/task-service';
