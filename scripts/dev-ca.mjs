#!/usr/bin/env node
// A development/test CA and one certificate per service for the mutual TLS of the gRPC links (ADR 0032), made
// with the system's openssl (nothing downloaded). Never for production: there cert-manager issues them
// (deploy/k8s). `node scripts/dev-ca.mjs <dir>` writes <dir>/ca.pem and <dir>/<service>.pem / -key.pem.
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICES = ['tasks', 'webhooks', 'linker', 'gateway', 'runner'];

const openssl = (args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** A new CA in `dir` (ca.pem, ca-key.pem); `name` tells CAs apart in tests. */
export function makeCa(dir, name = 'a2a-inbound dev CA') {
  mkdirSync(dir, { recursive: true });
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', join(dir, 'ca-key.pem')]);
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    join(dir, 'ca-key.pem'),
    '-sha256',
    '-days',
    '30',
    '-subj',
    `/CN=${name}`,
    '-out',
    join(dir, 'ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

/**
 * A certificate for `service` (its common name is the identity the servers check) signed by the CA in `caDir`,
 * written to `outDir`/<file>.pem and -key.pem. Written beside and renamed, so a reader never sees half a file.
 */
export function issue(caDir, service, outDir = caDir, file = service) {
  mkdirSync(outDir, { recursive: true });
  const tmp = join(outDir, `.${file}.${process.pid}`);
  const ext = join(outDir, `.${file}.ext`);
  writeFileSync(
    ext,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,clientAuth',
      `subjectAltName=DNS:${service},DNS:localhost,IP:127.0.0.1,IP:::1`,
    ].join('\n'),
  );
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${tmp}-key.pem`]);
  openssl(['req', '-new', '-key', `${tmp}-key.pem`, '-subj', `/CN=${service}`, '-out', `${tmp}.csr`]);
  openssl([
    'x509',
    '-req',
    '-in',
    `${tmp}.csr`,
    '-CA',
    join(caDir, 'ca.pem'),
    '-CAkey',
    join(caDir, 'ca-key.pem'),
    '-set_serial',
    `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`,
    '-days',
    '7',
    '-sha256',
    '-extfile',
    ext,
    '-out',
    `${tmp}.pem`,
  ]);
  renameSync(`${tmp}-key.pem`, join(outDir, `${file}-key.pem`));
  renameSync(`${tmp}.pem`, join(outDir, `${file}.pem`));
  rmSync(`${tmp}.csr`, { force: true });
  rmSync(ext, { force: true });
}

/** The CA and a certificate for every service in `dir`. */
export function makeDevPki(dir, services = SERVICES) {
  makeCa(dir);
  for (const s of services) issue(dir, s);
  return dir;
}

/** The environment of `service` for the PKI in `dir`. */
export function tlsEnv(dir, service, reloadMs = 60_000) {
  return {
    GRPC_TLS_CA_FILE: join(dir, 'ca.pem'),
    GRPC_TLS_CERT_FILE: join(dir, `${service}.pem`),
    GRPC_TLS_KEY_FILE: join(dir, `${service}-key.pem`),
    GRPC_TLS_RELOAD_MS: String(reloadMs),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: node scripts/dev-ca.mjs <dir>\n');
    process.exit(2);
  }
  makeDevPki(dir);
  process.stdout.write(`dev CA and certificates for ${SERVICES.join(', ')} in ${dir}\n`);
}
