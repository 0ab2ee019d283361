import { describe, expect, it } from 'vitest';
import { Sink, lit } from '../../src/domain/extract/common';
import { type LanguageRules, extractorOf, sqlStringRule } from '../../src/domain/extract/driver';
import type { Scope } from '../../src/domain/extract/scope';
import { emptyFacts } from '../../src/domain/model';
import { parse } from '../../src/domain/parsers';

const SOURCE = [
  "call(A, 'first');", // line 1: A is declared only below
  "const A = '/orders';",
  "call(B, 'second');",
  "const B = 'SELECT id FROM invoices';",
  "const tiny = 'short';",
].join('\n');

/** A toy language over the JavaScript grammar that records what the driver does, in order. */
function recordingRules(trace: string[]): LanguageRules {
  return ({ file, sink, scope }) => {
    const evaluate = (n: Parameters<Scope['add']>[1]) =>
      n.type === 'string' ? lit(n.text.slice(1, -1)) : (scope.lookup(n.text) ?? [{ ref: n.text }]);
    return {
      evaluate,
      declarations: {
        variable_declarator(node) {
          const name = node.childForFieldName('name')!.text;
          trace.push(`declare ${name}`);
          scope.add(name, node.childForFieldName('value')!);
        },
      },
      rules: [
        {
          on: ['call_expression'],
          each(node) {
            const first = node.childForFieldName('arguments')!.namedChild(0)!;
            trace.push(`call ${JSON.stringify(evaluate(first))} line ${node.startPosition.row + 1}`);
          },
        },
        { on: ['call_expression'], each: (node) => trace.push(`second rule line ${node.startPosition.row + 1}`) },
        sqlStringRule(sink, file, ['string'], (s) => s.text.slice(1, -1)),
      ],
    };
  };
}

describe('the shared extractor driver (one walk, a rule table per language)', () => {
  it('declarations run during the walk in document order; each rule then runs over its nodes, rule after rule', async () => {
    const trace: string[] = [];
    const facts = emptyFacts('repo');
    const tree = await parse('javascript', SOURCE);
    const exported: [string, unknown][] = [];
    try {
      extractorOf(recordingRules(trace))(tree.rootNode, 'a.js', new Sink(facts), (scope) =>
        exported.push(...scope.known()),
      );
    } finally {
      tree.delete();
    }
    expect(trace).toEqual([
      'declare A',
      'declare B',
      'declare tiny',
      // A rule sees every declaration of the file, even one below the call.
      'call [{"lit":"/orders"}] line 1',
      'call [{"lit":"SELECT id FROM invoices"}] line 3',
      'second rule line 1',
      'second rule line 3',
    ]);
    // The file's scope is handed out once the rules ran.
    expect(Object.fromEntries(exported)).toMatchObject({
      A: [{ lit: '/orders' }],
      B: [{ lit: 'SELECT id FROM invoices' }],
    });
  });

  it('the SQL rule reads string literals longer than 12 characters only', async () => {
    const facts = emptyFacts('repo');
    const tree = await parse('javascript', SOURCE);
    try {
      extractorOf(recordingRules([]))(tree.rootNode, 'a.js', new Sink(facts), () => undefined);
    } finally {
      tree.delete();
    }
    expect(facts.data.map((d) => `${d.kind} ${d.name} ${d.loc.file}:${d.loc.line}`)).toEqual(['table invoices a.js:4']);
  });
});
