import { describe, expect, it } from 'vitest';
import { reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('Express routers composed across files (issue 20)', () => {
  it('app.use(prefix, routerOfAnIndexModule) whose index composes routers of other files with router.use(r): every route gets the prefix', async () => {
    const r = await reportOf({
      web: {
        'src/api.ts': lines(
          'export async function me() {',
          "  return fetch('http://accounts/api/v2/accounts/me');",
          '}',
          'export async function login() {',
          "  return fetch('http://accounts/api/v2/accounts/login', { method: 'POST' });",
          '}',
        ),
      },
      accounts: {
        'src/app.ts': lines(
          "import express from 'express';",
          "import { accountsRouter } from './routes';",
          'const app = express();',
          "app.use('/api/v2/accounts', accountsRouter);",
        ),
        'src/routes/index.ts': lines(
          "import { Router } from 'express';",
          "import { meRouter } from './me';",
          "import { loginRouter } from './login';",
          'const router = Router();',
          'router.use(meRouter);',
          'router.use(loginRouter);',
          'export { router as accountsRouter };',
        ),
        'src/routes/me.ts': lines(
          "import express from 'express';",
          'const router = express.Router();',
          "router.get('/me', (req, res) => res.send({}));",
          'export { router as meRouter };',
        ),
        'src/routes/login.ts': lines(
          "import express from 'express';",
          'const router = express.Router();',
          "router.post('/login', (req, res) => res.send({}));",
          'export { router as loginRouter };',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/api.ts:2 | GET accounts/api/v2/accounts/me | accounts src/routes/me.ts:3 GET /api/v2/accounts/me (express)',
      'web src/api.ts:5 | POST accounts/api/v2/accounts/login | accounts src/routes/login.ts:3 POST /api/v2/accounts/login (express)',
    ]);
  });
});
