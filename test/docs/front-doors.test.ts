import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const services = ['gateway', 'tasks', 'runner', 'webhooks', 'linker'];

/** The front-door rule's messages for `code` linted as if it were the file at `path`. */
let eslint: ESLint | undefined;
async function frontDoorErrors(path: string, code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((m) => m.message);
}

describe('front doors: one src/index.ts per package, and no import into another package’s src/', () => {
  it.each(services)('%s: package.json main and types point at src/index.ts, which exists', (s) => {
    const pkg = JSON.parse(readFileSync(join(root, 'services', s, 'package.json'), 'utf8')) as Record<string, string>;
    expect(pkg.main).toBe('./src/index.ts');
    expect(pkg.types).toBe('./src/index.ts');
    expect(readFileSync(join(root, 'services', s, 'src', 'index.ts'), 'utf8')).toMatch(
      new RegExp(`start${s[0]!.toUpperCase()}${s.slice(1)}App[\\s\\S]*load${s[0]!.toUpperCase()}${s.slice(1)}Config`),
    );
  });

  it('the lint rule refuses @a2a-inbound/<pkg>/src/… and relative paths into another package’s src/', async () => {
    const bad = [
      "import { startGatewayApp } from '@a2a-inbound/gateway/src/app';",
      "import { loadTasksConfig } from '@a2a-inbound/tasks/src';",
      "import { LinkerService } from '../services/linker/src/domain/linker-service';",
      "import { Lifecycle } from '../../packages/runtime/src/lifecycle';",
    ];
    for (const line of bad) {
      const errors = await frontDoorErrors('test/docs/env-tables.test.ts', `${line}\nexport const x = 1;\n`);
      expect(errors, line).toHaveLength(1);
      expect(errors[0], line).toMatch(/front door/);
    }
  }, 120_000);

  it('the lint rule accepts front doors and a package’s own src/ from its tests', async () => {
    expect(
      await frontDoorErrors(
        'test/docs/env-tables.test.ts',
        "import { loadGatewayConfig } from '@a2a-inbound/gateway';\nexport const x = loadGatewayConfig;\n",
      ),
    ).toEqual([]);
    expect(
      await frontDoorErrors(
        'services/runner/test/unit/config.test.ts',
        "import { loadRunnerConfig } from '../../src/config';\nexport const x = loadRunnerConfig;\n",
      ),
    ).toEqual([]);
  }, 120_000);
});
