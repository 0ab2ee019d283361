// One flat config: type-aware rules plus import boundaries (a service never imports another service;
// domain/ never imports transport or adapters; packages never import services; no package reaches into
// another package's src/: each is imported through its front door, src/index.ts).
import tseslint from 'typescript-eslint';

const services = ['gateway', 'tasks', 'runner', 'webhooks', 'linker'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'proto/gen/**',
      '.infra/**',
      '**/fixtures/**',
      'scripts/**/*.mjs',
      'scripts/**/*.d.mts',
      'bench/**/*.mjs',
      'bench/**/*.cjs',
      'eslint.config.mjs',
      'coverage/**',
      'services/*/public/**',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/only-throw-error': 'error',
      // Port methods are async by contract even when an adapter has nothing to await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  ...services.map((name) => ({
    files: [`services/${name}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: services.filter((s) => s !== name).map((s) => `@a2a-inbound/${s}`),
              message: 'A service never imports another service: talk over gRPC or the bus.',
            },
            { group: ['**/services/*/**'], message: 'A service never reaches into another service.' },
          ],
        },
      ],
    },
  })),
  {
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/transport/**', '../transport', '../transport/*'],
              message: 'domain/ never imports transport.',
            },
            {
              group: ['@a2a-inbound/adapter-*', 'express', '@grpc/*', 'kafkajs', 'mongodb', 'ioredis'],
              message: 'domain/ works on ports only.',
            },
            {
              group: ['@opentelemetry/sdk-*', '@opentelemetry/instrumentation*', '@opentelemetry/exporter-*'],
              message: 'domain/ traces through @opentelemetry/api (or withSpan) only; the SDK is started by main.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: services.map((s) => `@a2a-inbound/${s}`), message: 'packages never import services.' }] },
      ],
    },
  },
  {
    // Front doors: another package is imported by its name (its src/index.ts), never by a path into its src/.
    // A separate rule from no-restricted-imports, so the per-folder boundaries above do not replace it.
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@a2a-inbound/*/src', '@a2a-inbound/*/src/**'],
              message: "Import the package's front door (@a2a-inbound/<name>, its src/index.ts), not its src/ files.",
            },
            {
              group: ['**/services/*/src', '**/services/*/src/**', '**/packages/*/src', '**/packages/*/src/**'],
              message: "Import the package's front door (@a2a-inbound/<name>), not a path into another package's src/.",
            },
            {
              group: ['**/embedded/src', '**/embedded/src/**'],
              message: 'Import the embedded mode through @a2a-inbound/embedded.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', 'bench/**/*.ts', 'packages/testing/**/*.ts', 'packages/ports/src/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      'no-console': 'off',
    },
  },
);
