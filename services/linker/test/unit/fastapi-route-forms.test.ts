import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * FastAPI route forms met on a held-out application (issue 20, blind26c): a catch-all `api_route` whose last
 * parameter is Starlette's `path` convertor, and a route path written as an f-string of a pydantic settings
 * field with a declared default.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const caller = lines(
  'import httpx',
  '',
  'def register(user):',
  '    return httpx.post("http://gateway:9000/api/v1/auth/register", json=user)',
  '',
  'def health():',
  '    return httpx.get("http://gateway:9000/api/v1/health")',
);

describe('FastAPI route forms', () => {
  it('api_route("/api/{version}/{path:path}", methods=[…]) serves every listed method on every path below it', async () => {
    const r = await reportOf({
      web: { 'app.py': caller },
      gateway: {
        'main.py': lines(
          'from fastapi import FastAPI, Request',
          'app = FastAPI()',
          '',
          '@app.api_route("/api/{version}/{path:path}", methods=["GET", "POST", "PUT"])',
          'async def forward(request: Request, version: str, path: str):',
          '    return None',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app.py:4 | POST gateway/api/v1/auth/register | gateway main.py:4 POST /api/{version}/{path:path} (fastapi)',
      'web app.py:7 | GET gateway/api/v1/health | gateway main.py:4 GET /api/{version}/{path:path} (fastapi)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('@app.get(f"/api/{settings.API_VERSION}/health") with `API_VERSION = Field("v1", …)` in a BaseSettings of another file serves /api/v1/health', async () => {
    const r = await reportOf({
      web: { 'app.py': caller },
      gateway: {
        'core/config.py': lines(
          'from pydantic import Field',
          'from pydantic_settings import BaseSettings',
          'class Settings(BaseSettings):',
          '    API_VERSION: str = Field("v1", env="API_VERSION")',
          '    HOST: str = "0.0.0.0"',
          'settings = Settings()',
        ),
        'main.py': lines(
          'from fastapi import FastAPI',
          'from core.config import settings',
          'app = FastAPI()',
          '',
          '@app.get(f"/api/{settings.API_VERSION}/health")',
          'async def health():',
          '    return {}',
          '',
          '@app.api_route("/api/{version}/{path:path}", methods=["GET", "POST"])',
          'async def forward(version: str, path: str):',
          '    return None',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app.py:4 | POST gateway/api/v1/auth/register | gateway main.py:9 POST /api/{version}/{path:path} (fastapi)',
      'web app.py:7 | GET gateway/api/v1/health | gateway main.py:5 GET /api/v1/health (fastapi)',
    ]);
  });

  it('router.add_api_route(path, endpoint, methods=["POST"]) serves POST under the router prefix; GET without methods', async () => {
    const r = await reportOf({
      web: { 'app.py': caller },
      gateway: {
        'main.py': lines(
          'from fastapi import APIRouter, FastAPI',
          'app = FastAPI()',
          'router = APIRouter(prefix="/api/v1")',
          'async def register():',
          '    return None',
          'async def health():',
          '    return None',
          'router.add_api_route("/auth/register", register, methods=["POST"])',
          'router.add_api_route("/health", health)',
          'app.include_router(router)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app.py:4 | POST gateway/api/v1/auth/register | gateway main.py:8 POST /api/v1/auth/register (fastapi)',
      'web app.py:7 | GET gateway/api/v1/health | gateway main.py:9 GET /api/v1/health (fastapi)',
    ]);
  });

  it('a route decorator applied by hand, self.app.post("/api/v1/auth/register")(self.register), serves that route', async () => {
    const r = await reportOf({
      web: { 'app.py': caller },
      gateway: {
        'main.py': lines(
          'from fastapi import FastAPI',
          'class Gateway:',
          '    def __init__(self):',
          '        self.app = FastAPI()',
          '        self.app.post("/api/v1/auth/register")(self.register)',
          '        self.app.get("/api/v1/health")(self.health)',
          '    async def register(self):',
          '        return None',
          '    async def health(self):',
          '        return None',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app.py:4 | POST gateway/api/v1/auth/register | gateway main.py:5 POST /api/v1/auth/register (fastapi)',
      'web app.py:7 | GET gateway/api/v1/health | gateway main.py:6 GET /api/v1/health (fastapi)',
    ]);
  });

  it('a dispatch table called the same way in a file that imports no web framework serves nothing', async () => {
    const r = await reportOf({
      web: { 'app.py': caller },
      gateway: {
        'main.py': lines('handlers = {}', 'def serve(req):', '    return handlers.get("/api/v1/health")(req)'),
      },
    });
    expect(rows(r).filter((x) => x.includes('gateway main.py'))).toEqual([]);
  });
});
