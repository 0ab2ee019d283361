export * from './system';
export * from './config';
export * from './data-dir';
export * from './open-engines';
