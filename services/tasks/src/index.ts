// Front door of the tasks package: what the embedded mode, the system tests and tooling may import.
export { startTasksApp, type TasksApp, type TasksDeps } from './app';
export { loadTasksConfig, type TasksConfig } from './config';
export { createAdminUser } from './domain/bootstrap';
