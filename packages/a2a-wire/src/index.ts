export * from './v1';
export * from './send';
export * from './agent-access';
export * from './push-config';
export * from './v1-field-names';
