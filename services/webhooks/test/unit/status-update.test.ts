import { describe, expect, it } from 'vitest';
import { isStatusUpdate } from '../../src/app';

describe('isStatusUpdate (which task updates are pushed)', () => {
  it('answers from the prefix the tasks service writes, and parses anything else', () => {
    const status = { kind: 'status-update', taskId: 't', status: { state: 'completed' }, final: true };
    const artifact = { kind: 'artifact-update', taskId: 't', artifact: { parts: [{ kind: 'text', text: 'x' }] } };
    expect(isStatusUpdate(JSON.stringify(status))).toBe(true);
    expect(isStatusUpdate(JSON.stringify(artifact))).toBe(false);
    // Another producer's layout: kind not first, or whitespace.
    expect(isStatusUpdate(JSON.stringify({ taskId: 't', kind: 'status-update' }))).toBe(true);
    expect(isStatusUpdate(JSON.stringify({ taskId: 't', kind: 'artifact-update' }))).toBe(false);
    expect(isStatusUpdate(JSON.stringify(status, null, 2))).toBe(true);
    // An artifact whose text mentions a status update is still an artifact.
    expect(isStatusUpdate(JSON.stringify({ ...artifact, note: '{"kind":"status-update"' }))).toBe(false);
    expect(isStatusUpdate('not json')).toBe(false);
    expect(isStatusUpdate('{"kind":"status-update-ish"}')).toBe(false);
  });
});
