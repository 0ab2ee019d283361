import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTck, unexpectedFailures } from './harness';

/**
 * The official A2A 0.3 TCK (a2aproject/a2a-tck, branch 0.3.x) against the embedded system's `demo:tck` agent on
 * its 0.3 JSON-RPC endpoint. Run by `npm run tck:0.3` (scripts/a2a-tck-0.3.sh installs that TCK and sets
 * A2A_TCK_DIR and A2A_TCK_PYTHON); a plain `npm test` skips it (the TCK comes from GitHub).
 */
const tckDir = process.env.A2A_TCK_DIR;
const python = process.env.A2A_TCK_PYTHON;
const isV03Tree = Boolean(tckDir && existsSync(join(tckDir, 'tests', 'mandatory')));

/**
 * Failures of the pinned TCK that are its bugs or our documented choices, each named with the spec text in
 * docs/conformance-notes.md ("Official A2A 0.3 TCK"). Any other failure fails this test.
 */
const KNOWN: readonly { test: RegExp; why: string }[] = [
  // The auth proxy adds the key to every request that has none (the TCK sends none): its "no credentials" request
  // carries one. Its wrong-credentials requests keep theirs and are refused (401).
  { test: /test_auth_enforcement::test_authentication_required_when_declared$/, why: 'the auth proxy adds the key' },
  { test: /test_error_validation_enhanced::test_invalid_method_error_validation$/, why: 'method is a dict: -32600' },
  { test: /test_agent_card_security::test_public_agent_card_access_control$/, why: 'GETs the JSON-RPC url' },
  { test: /test_agent_card_security::test_sensitive_information_protection$/, why: '127.0.0.1, apiKey scheme' },
  {
    test: /test_multi_transport_equivalence::test_agent_card_access_equivalence$|test_a2a_error_codes_enhanced::test_push_notification_not_supported_error_32003_enhanced$/,
    why: 'reads the card through agent/getAuthenticatedExtendedCard (-32007)',
  },
  {
    test: /test_message_send_continue_task$|test_state_transitions::test_task_history_length$|test_message_send_continue_with_contextid$|test_resilience::test_partial_update_recovery$/,
    why: 'a finished task takes no message (-32602)',
  },
  {
    test: /test_tasks_cancel_valid$|TestMethodMappingCompliance::test_core_method_mapping_compliance$|test_task_state_quality::test_task_cancel_state_handling$/,
    why: 'a completed task is not cancelable (-32002)',
  },
  { test: /test_task_state_quality::test_task_state_transitions$/, why: 'a blocking send answers the final state' },
  {
    test: /test_push_notification_config_methods::test_(set|get|list|delete)_push_notification_config(_nonexistent)?$/,
    why: 'token required',
  },
];

// Skipped unless scripts/a2a-tck-0.3.sh set A2A_TCK_DIR and A2A_TCK_PYTHON: the TCK is not on PyPI and comes from
// GitHub, which CI's machines cannot reach (`npm run tck:0.3` fetches it and runs this file).
describe.skipIf(!isV03Tree || !python)(
  'official A2A 0.3 TCK (npm run tck:0.3; skipped without A2A_TCK_DIR: the TCK comes from GitHub)',
  () => {
    it('passes every category on JSON-RPC but for the known divergences', { timeout: 20 * 60_000 }, async () => {
      const run = await runTck(tckDir!, python!, (agentBase) => [
        [
          'tests/mandatory/',
          'tests/optional/',
          `--sut-url=${agentBase}/a2a/v0.3`,
          '--test-scope=all',
          '--tb=line',
          '-q',
          '-p',
          'no:cacheprovider',
        ],
      ]);
      expect(run.cases.length, run.output).toBeGreaterThan(0);
      expect(unexpectedFailures(run, KNOWN)).toEqual([]);
    });
  },
);
