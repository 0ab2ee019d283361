import type {
  Binding,
  Call,
  Consume,
  ExchangeDecl,
  Loc,
  ObjClass,
  ObjMethod,
  ObjSite,
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
  readonly found: Found;
  readonly fields: Map<string, ObjValue>;
  /** The name the creation was assigned to (`client = OrdersClient(…)`), when the site says. */
  readonly assigned?: string | undefined;
}

interface Found {
  readonly cls: ObjClass;
  readonly source: string;
}

export function instantiateObjects(sources: readonly SourceFacts[]): SourceFacts[] {
  const classes = new Map<string, Found | null>();
  /** Each source's own classes: a creation finds its own source's class of that name first. */
  const own = new Map<string, Map<string, Found>>();
  for (const s of sources)
    for (const c of s.objClasses ?? []) {
      const prev = classes.get(c.name);
      const mine = own.get(s.source) ?? new Map<string, Found>();
      own.set(s.source, mine);
      // Two of one name in a source (two modules): that source's creations follow neither.
      mine.set(
        c.name,
        mine.has(c.name) ? { cls: { ...c, ctors: [], methods: [] }, source: s.source } : { cls: c, source: s.source },
      );
      // Two different classes of one name (two libraries): neither is followed from another source.
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
    const calls: Call[] = [];
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
      named?: Readonly<Record<string, ObjValue>>,
    ): void => {
      if (depth > MAX_DEPTH) return;
      const params = new Map<string, ObjValue>();
      // By position, else by keyword, else the parameter's default.
      m.params.forEach((p, i) =>
        params.set(
          p,
          args[i] ??
            (named && Object.prototype.hasOwnProperty.call(named, p) ? named[p] : undefined) ??
            m.defaults?.[i] ?? [HOLE_PART],
        ),
      );
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
            emit(found, e.line, () => publishes.push({ broker: e.broker ?? 'rabbitmq', exchange, key, loc }));
            break;
          }
          case 'http': {
            const url = finalize(v(e.url));
            emit(found, e.line, () => calls.push({ method: e.method, url, client: e.client, loc }));
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

    const findClass = (cls: string): Found | undefined => own.get(s.source)?.get(cls) ?? classes.get(cls) ?? undefined;
    const create = (
      cls: string,
      args: readonly ObjValue[],
      loc: Loc,
      depth: number,
      site?: ObjSite,
    ): Instance | undefined => {
      const found = findClass(cls);
      if (!found || depth > MAX_DEPTH) return undefined;
      const inst: Instance = { cls: found.cls, found, fields: new Map(), assigned: site?.assigned };
      instances.push(inst);
      const ctor = pick(found.cls.ctors, args.length, site?.named);
      if (ctor) run(found, ctor, args, inst.fields, loc, depth, undefined, site?.named);
      return inst;
    };

    // Registrations and creations first (in file order), then the calls of the instances' methods.
    for (const site of sites) {
      if (site.isNew) {
        create(site.name, site.args, site.loc, 0, site);
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
    // A bean held by injection (`private final Producer producer;`): one instance without state, for the
    // calls through a receiver declared of its type in a source that creates none.
    for (const site of sites) {
      const found = site.receiverType !== undefined && !site.isNew ? findClass(site.receiverType) : undefined;
      if (found?.cls.injected && !instances.some((i) => i.cls.name === found.cls.name))
        instances.push({ cls: found.cls, found, fields: new Map() });
    }
    // Each method call runs once per distinct instance state (two registrations alike say the same).
    const states = new Map<string, Instance>();
    for (const inst of instances)
      states.set(`${inst.cls.name}|${inst.assigned ?? ''}|${JSON.stringify([...inst.fields])}`, inst);
    if (states.size)
      for (const site of sites) {
        if (site.isNew) continue;
        const fits = [...states.values()].flatMap((inst) => {
          const m = pick(
            inst.cls.methods.filter((x) => x.name === site.name && !x.static),
            site.args.length,
            site.named,
          );
          return m ? [{ inst, m }] : [];
        });
        // A receiver named like the variable an instance was assigned to takes that instance; a receiver
        // holding none of them takes the one instance that has the method (two: the call is not followed).
        const typed = site.receiverType;
        const ofType = typed !== undefined ? fits.filter((f) => f.inst.cls.name === typed) : [];
        // Several beans of the type: the one whose name is the receiver's (Spring injects by name then).
        const byName = ofType.filter((f) => f.inst.assigned === site.receiver);
        const held =
          typed !== undefined
            ? byName.length
              ? byName
              : ofType
            : site.receiver === undefined
              ? fits
              : fits.filter((f) => f.inst.assigned === site.receiver);
        const chosen =
          site.receiver === undefined || typed !== undefined || held.length
            ? held
            : new Set(fits.map((f) => f.inst.cls)).size === 1 && fits.length === 1
              ? fits
              : [];
        for (const { inst, m } of chosen)
          run(inst.found, m, site.args, new Map(inst.fields), site.loc, 0, undefined, site.named);
      }
    if (!publishes.length && !consumes.length && !bindings.length && !exchanges.length && !calls.length) return s;
    // A publish the source already reads at that site (a call named like a client's `publish`) is one.
    const had = new Set(s.publishes.map((p) => JSON.stringify([p.loc.file, p.loc.line, p.exchange, p.key])));
    return {
      ...s,
      calls: [...s.calls, ...calls],
      publishes: [
        ...s.publishes,
        ...publishes.filter((p) => !had.has(JSON.stringify([p.loc.file, p.loc.line, p.exchange, p.key]))),
      ],
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
      calls: s.calls.filter(keep),
      publishes: s.publishes.filter(keep),
      consumes: s.consumes.filter(keep),
      bindings: s.bindings.filter(keep),
      exchanges: s.exchanges.filter(keep),
      queues: s.queues.filter(keep),
    };
  });
}

/**
 * The overload of `arity` parameters (Python: at most that many, the others by keyword or default); among
 * several, one that does not chain (`: this(…)`) to another.
 */
function pick(
  list: readonly ObjMethod[],
  arity: number,
  named?: Readonly<Record<string, ObjValue>>,
): ObjMethod | undefined {
  const fits = list.filter((m) => {
    if (!m.defaults) return m.params.length === arity && !named;
    if (arity > m.params.length) return false;
    const keys = Object.keys(named ?? {});
    if (keys.some((k) => !m.params.includes(k))) return false;
    // Every parameter without a default is given, by position or keyword.
    return m.params.every((p, i) => i < arity || keys.includes(p) || m.defaults![i] !== null);
  });
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
