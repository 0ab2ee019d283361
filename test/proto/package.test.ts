// The generated clients as a package another team depends on (issue 13): `npm run proto:pack` makes a
// tarball of compiled JavaScript with type declarations and the .proto files. Installed into an empty project
// next to its two dependencies only (no TypeScript source, no bundler, no repository), plain `node` calls a
// TasksService with its client and plain `tsc` type-checks a caller against its declarations.
import { execFile, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

/** Runs a command without blocking the test worker (tsc takes a while): its exit status and output. */
function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout: number },
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}
let dir: string;
let tarball: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'a2a-proto-package-'));
  const r = await run(process.execPath, [join(root, 'scripts', 'pack-proto.mjs'), join(dir, 'out')], {
    timeout: 240_000,
  });
  expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  tarball = r.stdout.trim().split('\n').at(-1)!;
  // The consumer: its own node_modules with the package and its dependencies (and @types/node, as any
  // TypeScript project on Node has), nothing else.
  const consumer = join(dir, 'consumer');
  const scope = join(consumer, 'node_modules', '@a2a-inbound');
  mkdirSync(scope, { recursive: true });
  expect(spawnSync('tar', ['xzf', tarball, '-C', scope]).status).toBe(0);
  spawnSync('mv', [join(scope, 'package'), join(scope, 'proto')]);
  const manifest = JSON.parse(readFileSync(join(scope, 'proto', 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const dep of [...Object.keys(manifest.dependencies), '@types/node']) {
    mkdirSync(join(consumer, 'node_modules', dep, '..'), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules', dep)), join(consumer, 'node_modules', dep));
  }
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const files = (d: string): string[] =>
  readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(d, e.name)).map((f) => `${e.name}/${f}`) : [e.name],
  );

describe('npm run proto:pack: the gRPC clients as a package', () => {
  it('holds compiled JavaScript, declarations, the .proto files and the released contracts, no TypeScript source', () => {
    const pkg = join(dir, 'consumer', 'node_modules', '@a2a-inbound', 'proto');
    const all = files(pkg);
    expect(all).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/gen/a2a_inbound/tasks/v1/tasks.js',
        'dist/gen/a2a_inbound/linker/v1/linker.d.ts',
        'a2a_inbound/tasks/v1/tasks.proto',
        'a2a_inbound/control/v1/control.proto',
        'a2a_inbound/linker/v1/linker.proto',
        'released/contract-v1.binpb',
      ]),
    );
    expect(all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@a2a-inbound/proto', main: './dist/src/index.js' });
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(['@bufbuild/protobuf', '@grpc/grpc-js']);
  });

  it('plain node calls TasksService, ControlPlaneService and LinkerService clients of the package', async () => {
    const consumer = join(dir, 'consumer');
    writeFileSync(
      join(consumer, 'call.js'),
      `const grpc = require('@grpc/grpc-js');
const { tasksV1, controlV1, linkerV1, FILE_DESCRIPTOR_SET_BASE64 } = require('@a2a-inbound/proto');
const server = new grpc.Server();
server.addService(tasksV1.TasksServiceService, {
  getTask: (call, cb) => cb(null, { taskJson: JSON.stringify({ id: call.request.taskId, caller: call.request.caller.agentId }) }),
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  const client = new tasksV1.TasksServiceClient('127.0.0.1:' + port, grpc.credentials.createInsecure());
  const caller = { subscriptionId: 's', deploymentId: 'd', agentId: 'a', keyId: 'k', protocolVersion: '0.3.0' };
  client.getTask({ caller, taskId: 't-1' }, (e, res) => {
    if (e) throw e;
    const bytes = tasksV1.GetTaskRequest.encode({ caller, taskId: 't-2' }).finish();
    console.log(JSON.stringify({
      task: JSON.parse(res.taskJson),
      roundTrip: tasksV1.GetTaskRequest.decode(bytes).taskId,
      clients: [typeof controlV1.ControlPlaneServiceClient, typeof linkerV1.LinkerServiceClient],
      descriptors: FILE_DESCRIPTOR_SET_BASE64.length > 1000,
    }));
    client.close();
    server.forceShutdown();
  });
});
`,
    );
    const r = await run(process.execPath, ['call.js'], { cwd: consumer, timeout: 30_000, env: {} });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      task: { id: 't-1', caller: 'a' },
      roundTrip: 't-2',
      clients: ['function', 'function'],
      descriptors: true,
    });
  });

  it('plain tsc type-checks a caller against its declarations, and refuses a wrong request', async () => {
    const consumer = join(dir, 'consumer');
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'node16', moduleResolution: 'node16', target: 'ES2022', noEmit: true },
        files: ['caller.ts'],
      }),
    );
    const caller = (taskId: string): string => `import { credentials, type ServiceError } from '@grpc/grpc-js';
import { tasksV1, linkerV1 } from '@a2a-inbound/proto';
const tasks = new tasksV1.TasksServiceClient('tasks:50051', credentials.createInsecure());
tasks.getTask(
  { caller: { subscriptionId: 's', deploymentId: '', agentId: 'a', keyId: '', protocolVersion: '0.3.0' }, taskId: ${taskId} },
  (err: ServiceError | null, res?: tasksV1.TaskResponse) => void (err ?? res?.taskJson),
);
const linker: linkerV1.LinkerServiceClient = new linkerV1.LinkerServiceClient('linker:50055', credentials.createInsecure());
linker.close();
`;
    const tsc = () =>
      run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', consumer], {
        timeout: 120_000,
      });
    writeFileSync(join(consumer, 'caller.ts'), caller("'t-1'"));
    const ok = await tsc();
    expect(ok.status, ok.stdout).toBe(0);
    writeFileSync(join(consumer, 'caller.ts'), caller('42'));
    const bad = await tsc();
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toMatch(/caller\.ts.*number.*string/);
  }, 150_000);
});
