import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTck, unexpectedFailures } from './harness';

/**
 * The official A2A 1.0 TCK (a2aproject/a2a-tck, branch 1.0-dev) against the embedded system, on JSON-RPC,
 * HTTP+JSON and gRPC. Run by `npm run tck` (scripts/a2a-tck.sh installs the TCK and sets A2A_TCK_DIR and
 * A2A_TCK_PYTHON): the TCK comes from GitHub, which an offline CI cannot reach, so a plain `npm test` skips it.
 * The agent is `demo:tck`, the demo runtime that follows the TCK's scenario conventions (`tck-*` message ids).
 */
const tckDir = process.env.A2A_TCK_DIR;
const python = process.env.A2A_TCK_PYTHON;
const isV1Tree = Boolean(tckDir && existsSync(join(tckDir, 'tests', 'compatibility')));

/**
 * Failures of the pinned TCK that are its bugs or our documented choices, each named with the spec text in
 * docs/conformance-notes.md ("Official A2A 1.0 TCK"). Any other failure fails this test.
 */
const KNOWN: readonly { test: RegExp; why: string }[] = [
  { test: /TestAgentCardStructure::test_agent_card_validates_against_schema$/, why: 'one card for 0.3 and 1.0' },
  { test: /TestMessageResponse::test_returns_message_with_text_part\[/, why: 'a MAY (3.1.1) tested as a MUST' },
  {
    test: /(TestRestErrorStructure::test_error_uses_aip193_format|TestAIP193ErrorFormat::test_error_content_type|TestRestFormat::test_response_content_type)$/,
    why: 'spec 11.1: application/a2a+json',
  },
  { test: /test_must_requirement\[CORE-SEND-003-/, why: 'requirement without its expected error (TCK bug)' },
  { test: /test_version_not_supported_returns_unimplemented$/, why: 'spec 5.4: FAILED_PRECONDITION' },
  { test: /TestJsonRpcErrorCodeMappings::test_content_type_not_supported_error$/, why: 'body is not JSON' },
];

// Skipped unless scripts/a2a-tck.sh set A2A_TCK_DIR and A2A_TCK_PYTHON: the TCK is not on PyPI and comes from
// GitHub, which CI's machines cannot reach (`npm run tck` downloads it and runs this file).
describe.skipIf(!isV1Tree || !python)(
  'official A2A 1.0 TCK (npm run tck; skipped without A2A_TCK_DIR: the TCK comes from GitHub)',
  () => {
    it('passes on JSON-RPC, HTTP+JSON and gRPC but for the known divergences', { timeout: 20 * 60_000 }, async () => {
      const run = await runTck(tckDir!, python!, (sutHost, reports) => [
        'tests/compatibility/',
        `--sut-host=${sutHost}`,
        '--tb=line',
        '-q',
        '-p',
        'no:cacheprovider',
        `--compatibility-report=${join(reports, 'compatibility')}`,
        `--junitxml=${join(reports, 'junit.xml')}`,
      ]);
      expect(run.cases.length, run.output).toBeGreaterThan(0);
      expect(unexpectedFailures(run, KNOWN)).toEqual([]);
      expect(run.count('passed')).toBeGreaterThan(150);
    });
  },
);
