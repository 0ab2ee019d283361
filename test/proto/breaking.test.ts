import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
function baseline(edit: (controlProto: string) => string = (s) => s): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-proto-baseline-'));
  made.push(dir);
  cpSync(join(proto, 'buf.yaml'), join(dir, 'buf.yaml'));
  cpSync(join(proto, 'a2a_inbound'), join(dir, 'a2a_inbound'), { recursive: true });
  cpSync(join(proto, 'grpc'), join(dir, 'grpc'), { recursive: true });
  const control = join(dir, 'a2a_inbound', 'control', 'v1', 'control.proto');
  writeFileSync(control, edit(readFileSync(control, 'utf8')));
  return dir;
}

function genCheck(against: string, ...flags: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'gen.mjs'), '--check', ...flags], {
    cwd: root,
    env: { ...process.env, BUF_BREAKING_AGAINST: against },
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
