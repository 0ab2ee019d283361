import type {
  Binding,
  Consume,
  ExchangeDecl,
  Loc,
  ObjClass,
  ObjMethod,
  ObjValue,
  Part,
  Publish,
  QueueDecl,
  SourceFacts,
} from './model';
import { HOLE_PART, concat, nameOf } from './extract/common';
import { CONFIG_REF, FALLBACK, FIELD_REF, PARAM_REF, capped } from './extract/objects';

/**
 * Object summaries instantiated at call sites (ADR 0062). A class of any attached source summarised by
 * `extract/objects.ts` runs, symbolically, where a source calls it:
 *
 * - a call of a static or extension method (`services.UseRabbitMQMessagePublisher(configuration)`) runs it
 *   with the call's arguments, through the helpers it calls with their own arguments (`GetSettings(config,
 *   "RabbitMQPublisher")` → `config.GetSection(sectionName)["Exchange"]` into a static field), and every
 *   object it creates of a summarised class becomes an instance of the calling source, its fields set by
 *   the constructor chain (`: this(…)`) from the values of that call;
 * - a `new C(…)` of a summarised class in the source is an instance the same way;
 * - a call of a method of an instance's class (`_publisher.PublishMessageAsync(type, e, "")`, `Start(this)`)
 *   runs it with the instance's fields and the call's arguments.
 *
 * What the runs publish, bind, consume and declare is the calling source's, at the call site, with
 * configuration paths left as `${Section.Key}` placeholders that the link stage resolves in that source's
 * configuration (appsettings and its overlays, compose and Kubernetes `Section__Key`). The library's own
 * sites of those effects (run-time names) are dropped once some source instantiates them. Every run has a
 * budget: nesting depth and steps per source.
 */
const MAX_DEPTH = 8;
const STEPS_PER_SOURCE = 4000;

interface Instance {
  readonly cls: ObjClass;
  readonly fields: Map<string, ObjValue>;
}

interface Found {
  readonly cls: ObjClass;
  readonly source: string;
}

export function instantiateObjects(sources: readonly SourceFacts[]): SourceFacts[] {
  const classes = new Map<string, Found | null>();
  for (const s of sources)
    for (const c of s.objClasses ?? []) {
      const prev = classes.get(c.name);
      // Two different classes of one name (two libraries): neither is followed.
      if (prev === undefined) classes.set(c.name, { cls: c, source: s.source });
      else if (prev !== null && JSON.stringify(prev.cls) !== JSON.stringify(c)) classes.set(c.name, null);
    }
  if (classes.size === 0) return [...sources];
  // Static and extension methods by name: the registration helpers services call.
  const entry = new Map<string, Found[]>();
  for (const f of classes.values())
    if (f)
      for (const m of f.cls.methods)
        if (m.static && m.effects.some((e) => e.op === 'new' || e.op === 'call'))
          entry.set(m.name, [...(entry.get(m.name) ?? []), f]);
  const used = new Map<string, Set<string>>();
  const out = sources.map((s) => {
    const sites = s.objSites ?? [];
    if (sites.length === 0) return s;
    const publishes: Publish[] = [];
    const consumes: Consume[] = [];
    const bindings: Binding[] = [];
    const exchanges: ExchangeDecl[] = [];
    const queues: QueueDecl[] = [];
    const instances: Instance[] = [];
    let steps = STEPS_PER_SOURCE;

    const bind = (v: ObjValue, params: ReadonlyMap<string, ObjValue>, fields: ReadonlyMap<string, ObjValue>): Part[] =>
      capped(
        concat(
          ...v.map((p): readonly Part[] => {
            if (!('ref' in p)) return [p];
            if (p.ref.startsWith(PARAM_REF)) return params.get(p.ref.slice(PARAM_REF.length)) ?? [HOLE_PART];
            if (p.ref.startsWith(FIELD_REF)) return fields.get(p.ref.slice(FIELD_REF.length)) ?? [HOLE_PART];
            return [p];
          }),
        ),
      );

    const emit = (found: Found, line: number, f: () => void): void => {
      f();
      const set = used.get(found.source) ?? new Set<string>();
      set.add(`${found.cls.file}:${line}`);
      used.set(found.source, set);
    };

    /** Runs `m` of `found` with `args`; `fields` is the instance's (or the class's static) state. */
    const run = (
      found: Found,
      m: ObjMethod,
      args: readonly ObjValue[],
      fields: Map<string, ObjValue>,
      loc: Loc,
      depth: number,
      self?: ObjMethod,
    ): void => {
      if (depth > MAX_DEPTH) return;
      const params = new Map<string, ObjValue>();
      m.params.forEach((p, i) => params.set(p, args[i] ?? [HOLE_PART]));
      for (const e of m.effects) {
        if (--steps < 0) return;
        const v = (x: ObjValue): Part[] => bind(x, params, fields);
        switch (e.op) {
          case 'set':
            fields.set(e.field, v(e.value));
            break;
          case 'call': {
            const list = e.method === '.ctor' ? found.cls.ctors : found.cls.methods;
            const target = pick(
              list.filter((x) => x.name === e.method && x !== self && x !== m),
              e.args.length,
            );
            if (target) run(found, target, e.args.map(v), fields, loc, depth + 1, m);
            break;
          }
          case 'new': {
            const inst = create(e.cls, e.args.map(v), loc, depth + 1);
            if (inst && e.field) fields.set(e.field, [{ ref: `\u0003obj:${instances.indexOf(inst)}` }]);
            break;
          }
          case 'publish': {
            const exchange = nameOf(finalize(v(e.exchange))) ?? '';
            const key = nameOf(finalize(v(e.key))) ?? '';
            emit(found, e.line, () => publishes.push({ broker: 'rabbitmq', exchange, key, loc }));
            break;
          }
          case 'bind': {
            const queue = nameOf(finalize(v(e.queue))) ?? '{}';
            const exchange = nameOf(finalize(v(e.exchange))) ?? '{}';
            const key = nameOf(finalize(v(e.key))) ?? '';
            emit(found, e.line, () => bindings.push({ exchange, queue, key, loc }));
            break;
          }
          case 'consume': {
            const queue = nameOf(finalize(v(e.queue))) ?? '{}';
            emit(found, e.line, () => {
              consumes.push({ broker: 'rabbitmq', queue, loc });
              queues.push({ name: queue, loc });
            });
            break;
          }
          case 'exchange': {
            const name = nameOf(finalize(v(e.name))) ?? '{}';
            emit(found, e.line, () => exchanges.push({ name, type: e.type, loc }));
            break;
          }
        }
      }
    };

    const create = (cls: string, args: readonly ObjValue[], loc: Loc, depth: number): Instance | undefined => {
      const found = classes.get(cls);
      if (!found || depth > MAX_DEPTH) return undefined;
      const inst: Instance = { cls: found.cls, fields: new Map() };
      instances.push(inst);
      const ctor = pick(found.cls.ctors, args.length);
      if (ctor) run(found, ctor, args, inst.fields, loc, depth);
      return inst;
    };

    // Registrations and creations first (in file order), then the calls of the instances' methods.
    for (const site of sites) {
      if (site.isNew) {
        create(site.name, site.args, site.loc, 0);
        continue;
      }
      for (const found of entry.get(site.name) ?? []) {
        const m = pick(
          found.cls.methods.filter((x) => x.name === site.name),
          site.args.length,
        );
        // A static class's fields are its own; each registration call starts from them unset.
        if (m) run(found, m, site.args, new Map(), site.loc, 0);
      }
    }
    // Each method call runs once per distinct instance state (two registrations alike say the same).
    const states = new Map<string, Instance>();
    for (const inst of instances) states.set(`${inst.cls.name}|${JSON.stringify([...inst.fields])}`, inst);
    if (states.size)
      for (const site of sites) {
        if (site.isNew) continue;
        for (const inst of states.values()) {
          const m = pick(
            inst.cls.methods.filter((x) => x.name === site.name && !x.static),
            site.args.length,
          );
          const found = classes.get(inst.cls.name);
          if (m && found) run(found, m, site.args, new Map(inst.fields), site.loc, 0);
        }
      }
    if (!publishes.length && !consumes.length && !bindings.length && !exchanges.length) return s;
    return {
      ...s,
      publishes: [...s.publishes, ...publishes],
      consumes: [...s.consumes, ...consumes],
      bindings: [...s.bindings, ...bindings],
      exchanges: [...s.exchanges, ...exchanges],
      queues: [...s.queues, ...queues],
    };
  });
  if (used.size === 0) return out;
  // The library's own sites of what was instantiated name only run-time values: its users report them.
  return out.map((s) => {
    const lines = used.get(s.source);
    if (!lines) return s;
    const keep = (x: { loc: Loc }): boolean => !lines.has(`${x.loc.file}:${x.loc.line}`);
    return {
      ...s,
      publishes: s.publishes.filter(keep),
      consumes: s.consumes.filter(keep),
      bindings: s.bindings.filter(keep),
      exchanges: s.exchanges.filter(keep),
      queues: s.queues.filter(keep),
    };
  });
}

/** The overload of `arity` parameters; among several, one that does not chain (`: this(…)`) to another. */
function pick(list: readonly ObjMethod[], arity: number): ObjMethod | undefined {
  const fits = list.filter((m) => m.params.length === arity);
  if (fits.length <= 1) return fits[0];
  return fits.find((m) => !m.effects.some((e) => e.op === 'call' && e.method === '.ctor')) ?? fits[0];
}

/**
 * A bound value as the linker's parts: a configuration path (`cfg`, `RabbitMQPublisher`, `:Exchange`, and a
 * default after `??`) becomes the configuration lookup; anything still symbolic is unknown.
 */
function finalize(v: readonly Part[]): Part[] {
  const head = v[0];
  const fb = v[v.length - 1];
  const fallback = fb && 'ref' in fb && fb.ref.startsWith(FALLBACK) ? fb.ref.slice(FALLBACK.length) : undefined;
  const body = fallback === undefined ? v : v.slice(0, -1);
  if (head && 'ref' in head && head.ref === CONFIG_REF) {
    const rest = body.slice(1);
    if (rest.length === 1 && 'lit' in rest[0]!)
      return [fallback === undefined ? { config: rest[0].lit } : { config: rest[0].lit, fallback }];
    return [HOLE_PART];
  }
  return body.map((p) => ('ref' in p && p.ref.startsWith('\u0003') ? HOLE_PART : p));
}
