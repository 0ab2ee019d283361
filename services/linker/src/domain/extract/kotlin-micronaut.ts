import type { Node } from '../parsers';
import { joinPath } from '../routes';
import type { Sink } from './common';
import { MICRONAUT_VERBS } from './java';

/**
 * Micronaut in Kotlin, as `java.ts` reads it in Java: `@Controller("/p")` classes with `@Get`/`@Post`…
 * functions, and controllers implementing a route-annotated interface of a shared `*-api` module
 * (`class DocumentsController(…) : DocumentsOperations`: served under the controller's prefix, link time);
 * `@KafkaListener` classes whose `@Topic` functions consume, `@KafkaClient` interfaces whose `@Topic`
 * functions publish. Only in a file that imports Micronaut.
 */
const VERBS = MICRONAUT_VERBS;

const kids = (n: Node | null | undefined): Node[] =>
  (n?.namedChildren ?? []).filter((x): x is Node => x !== null && !/comment/.test(x.type));

interface Annotation {
  readonly name: string;
  readonly strings: string[];
  readonly line: number;
}

function annotationsOf(decl: Node): Annotation[] {
  const out: Annotation[] = [];
  for (const a of kids(kids(decl).find((x) => x.type === 'modifiers'))) {
    if (a.type !== 'annotation') continue;
    const inv = kids(a).find((x) => x.type === 'constructor_invocation');
    const name = (kids(inv ?? a)[0]?.text ?? '').replace(/^.*\./, '');
    const strings: string[] = [];
    for (const arg of kids(kids(inv).find((x) => x.type === 'value_arguments'))) {
      const label = kids(arg).length > 1 ? kids(arg)[0]!.text : undefined;
      // Positional, `value =`, `uri =`, `topics =`: the names; other labelled arguments are options.
      if (label && !/^(value|uri|uris|topics)$/.test(label)) continue;
      const visit = (n: Node, d: number): void => {
        if (d > 4) return;
        if (n.type === 'string_literal') {
          if (!kids(n).some((x) => x.type !== 'string_content')) strings.push(n.text.slice(1, -1));
        } else for (const c of kids(n)) visit(c, d + 1);
      };
      visit(kids(arg)[kids(arg).length - 1] ?? arg, 0);
    }
    out.push({ name, strings, line: a.startPosition.row + 1 });
  }
  return out;
}

export function kotlinMicronaut(root: Node, file: string, sink: Sink): void {
  if (!/\bio\.micronaut\./.test(root.text)) return;
  for (const cls of kids(root)) {
    if (cls.type !== 'class_declaration') continue;
    const className = kids(cls).find((x) => x.type === 'identifier' || x.type === 'type_identifier')?.text;
    const anns = annotationsOf(cls);
    const has = (n: string): Annotation | undefined => anns.find((a) => a.name === n);
    const body = kids(cls).find((x) => x.type === 'class_body');
    const functions = kids(body).filter((x) => x.type === 'function_declaration');
    const kafkaClient = has('KafkaClient');
    const kafkaListener = has('KafkaListener');
    if (kafkaClient || kafkaListener)
      for (const fn of functions)
        for (const a of annotationsOf(fn)) {
          if (a.name !== 'Topic') continue;
          for (const t of a.strings)
            if (kafkaClient) sink.publish('kafka', '', t, { file, line: a.line });
            else sink.consume('kafka', t, { file, line: a.line });
        }
    // A route-annotated interface (`interface DocumentsOperations { @Get("/{n}") fun find(…) }`) of a shared
    // api module: served by the controllers implementing it, called by the clients extending it (link time).
    const isInterface = /^(\w+\s+)*interface\b/.test(cls.text.replace(/@\w+(\([^)]*\))?\s*/g, ''));
    if (isInterface && className && !has('Client') && !kafkaClient) {
      const ops = functions.flatMap((fn) => {
        const name = kids(fn).find((x) => x.type === 'identifier' || x.type === 'simple_identifier')?.text ?? '';
        return annotationsOf(fn).flatMap((a) =>
          VERBS[a.name]
            ? [{ name, method: VERBS[a.name]!, path: a.strings[0] ?? '', line: fn.startPosition.row + 1 }]
            : [],
        );
      });
      if (ops.length) (sink.facts.apiInterfaces ??= []).push({ name: className, ops, file });
      continue;
    }
    const controller = has('Controller');
    if (!controller || !className) continue;
    const prefix = controller.strings[0] ?? '';
    const methods: Record<string, number> = {};
    const annotated: string[] = [];
    for (const fn of functions) {
      const name = kids(fn).find((x) => x.type === 'identifier' || x.type === 'simple_identifier')?.text ?? '';
      const line = fn.startPosition.row + 1;
      methods[name] = line;
      for (const a of annotationsOf(fn)) {
        const verb = VERBS[a.name];
        if (!verb) continue;
        annotated.push(name);
        sink.endpoint(verb, joinPath(prefix, a.strings[0] ?? ''), 'micronaut', { file, line });
      }
    }
    for (const spec of kids(kids(cls).find((x) => x.type === 'delegation_specifiers'))) {
      const iface = kids(kids(spec).find((x) => x.type === 'user_type'))
        .map((x) => x.text)
        .pop();
      if (!iface) continue;
      (sink.facts.apiInterfaceUses ??= []).push({
        kind: 'server',
        iface,
        prefix,
        framework: 'micronaut',
        methods,
        annotated,
        loc: { file, line: cls.startPosition.row + 1 },
      });
    }
  }
}
