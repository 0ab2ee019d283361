import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const proto = join(root, 'proto');
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A copy of the proto module (sources and buf.yaml, no generated code), edited by `edit`. */
function baseline(edit: (controlProto: string) => string = (s) => s, withReleases = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-proto-baseline-'));
  made.push(dir);
  cpSync(join(proto, 'buf.yaml'), join(dir, 'buf.yaml'));
  cpSync(join(proto, 'a2a_inbound'), join(dir, 'a2a_inbound'), { recursive: true });
  cpSync(join(proto, 'grpc'), join(dir, 'grpc'), { recursive: true });
  if (withReleases) cpSync(join(proto, 'released'), join(dir, 'released'), { recursive: true });
  editControl(dir, edit);
  return dir;
}

function editControl(dir: string, edit: (controlProto: string) => string): void {
  const control = join(dir, 'a2a_inbound', 'control', 'v1', 'control.proto');
  writeFileSync(control, edit(readFileSync(control, 'utf8')));
}

function contract(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'proto-contract.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function genCheck(against: string | undefined, ...flags: string[]) {
  const env = { ...process.env };
  delete env.BUF_BREAKING_AGAINST;
  if (against) env.BUF_BREAKING_AGAINST = against;
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'gen.mjs'), '--check', ...flags], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The baseline had one more settings field than the proto has now: as if a field had been removed. */
const withRemovedField = (s: string): string =>
  s.replace(/(message AgentSettingsPatch \{)/, '$1\n  optional string colour = 99;');

describe('npm run gen:check guards the wire contract with buf breaking (ADR 0017)', () => {
  it('passes against a baseline equal to the proto', () => {
    const r = genCheck(baseline());
    expect(r.out).toMatch(/buf breaking: no breaking change/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('fails when a field of the baseline is gone, naming it', () => {
    const r = genCheck(baseline(withRemovedField));
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/AgentSettingsPatch/);
    expect(r.out).toMatch(/"99"|colour/);
    expect(r.out).toMatch(/--allow-breaking/);
  }, 120_000);

  it('a deliberate break passes with --allow-breaking, still reported', () => {
    const r = genCheck(baseline(withRemovedField), '--allow-breaking');
    expect(r.out).toMatch(/allowed by --allow-breaking/);
    expect(r.status).toBe(0);
  }, 120_000);
});

/** The released contract lost a field: remove `blocking_budget_ms = 7` as if a later edit had dropped it. */
const withoutReleasedField = (s: string): string => s.replace(/\n\s*optional int64 blocking_budget_ms = 7;/, '');
/** An additive change: a new field. */
const withNewField = (s: string): string =>
  s.replace(/(message AgentSettingsPatch \{)/, '$1\n  optional string colour = 99;');

describe('the released contract (proto/released, ADR 0023)', () => {
  it('gen:check compares the proto with the latest released contract by default', () => {
    const r = genCheck(undefined);
    expect(r.out).toMatch(/buf breaking: no breaking change against proto\/released\/contract-v\d+\.binpb/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('a proto that breaks the released contract fails, naming the field', () => {
    const dir = baseline(withoutReleasedField, true);
    const r = contract('breaking', '--proto', dir);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/AgentSettingsPatch/);
    expect(r.out).toMatch(/blocking_budget_ms|"7"/);
    expect(r.out).toMatch(/contract-v\d+\.binpb/);
    // An additive change passes.
    expect(contract('breaking', '--proto', baseline(withNewField, true)).status).toBe(0);
  }, 120_000);

  it('release cuts contract-v1, then v2 after an additive change; refuses a break and an unchanged proto', () => {
    const dir = baseline();
    let r = contract('release', '--proto', dir);
    expect(r.out).toMatch(/released contract-v1/);
    expect(existsSync(join(dir, 'released', 'contract-v1.binpb'))).toBe(true);
    expect(contract('release', '--proto', dir).out).toMatch(/nothing to release: the proto is contract-v1/);
    editControl(dir, withNewField);
    r = contract('release', '--proto', dir);
    expect(r.out).toMatch(/released contract-v2/);
    // From now on the check is against v2: removing the new field breaks it (v1 did not have it).
    editControl(dir, (s) => s.replace('\n  optional string colour = 99;', ''));
    r = contract('breaking', '--proto', dir);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/contract-v2\.binpb/);
    expect(r.out).toMatch(/colour|"99"/);
    r = contract('release', '--proto', dir);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/release refused: the proto breaks contract-v2/);
    expect(existsSync(join(dir, 'released', 'contract-v3.binpb'))).toBe(false);
    // A deliberate break is released with --allow-breaking (and an ADR).
    expect(contract('release', '--allow-breaking', '--proto', dir).out).toMatch(/released contract-v3/);
  }, 120_000);

  it('the committed release is what buf builds from a released proto (an image, not a stray file)', () => {
    const r = spawnSync(
      join(root, 'node_modules', '.bin', 'buf'),
      ['ls-files', join(proto, 'released', readdirSync(join(proto, 'released')).sort().at(-1)!)],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/a2a_inbound\/tasks\/v1\/tasks\.proto/);
    expect(r.stdout).toMatch(/a2a_inbound\/control\/v1\/control\.proto/);
  }, 120_000);
});
