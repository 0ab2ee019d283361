import type { Node } from '../parsers';
import type { HttpMethod, Part } from '../model';
import { joinPath } from '../routes';
import {
  HOLE_PART,
  LIST_SEP,
  concat,
  declaredQueueName,
  exchangeType,
  fieldRefOf,
  httpMethod,
  lineOf,
  lit,
  literal,
  nameOf,
  paramWrapper,
  routePath,
  rawName,
  settingOrDefault,
  type Within,
  sharedCallRules,
  sharedRuleName,
  splitList,
  withBase,
  paramPart,
  summarisable,
  returnStatements,
  FIELD_REF,
  isFieldRef,
  SOURCE_EXCHANGE,
} from './common';
import { MAX_SITES_PER_FILE, type MethodSpan, summariseFromUses } from './objects';
import { type LanguageRules, extractorOf, sqlStringRule } from './driver';
import { PYTHON_GRPC } from './grpc';
import { namekoRules } from './nameko';
import { kombuRules } from './kombu';
import { PY_NATS_IMPORT, PY_NATS_METHODS, pyNatsCall } from './nats';

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);
const HTTP_LIBS = new Set(['requests', 'httpx']);
const PY_NAMES = new Set([...VERBS, 'request', 'KafkaConsumer', 'AIOKafkaConsumer', 'path', 're_path', 'url']);

/** Python web frameworks whose route decorators a file may apply by hand. */
const PY_WEB_IMPORT = /^(fastapi|flask|starlette|quart)(?:\.|$)/;
/** Methods of a pymongo/motor collection: a call of one on `db.<collection>` touches that collection. */
const MONGO_METHODS = new Set(
  'find find_one find_one_and_update find_one_and_replace find_one_and_delete insert_one insert_many update_one update_many replace_one delete_one delete_many count_documents estimated_document_count aggregate bulk_write create_index create_indexes distinct watch'.split(
    ' ',
  ),
);

/** Built-ins and classes (capitalised: constructors) are no wrappers. */
const PY_BUILTINS =
  /^([A-Z]\w*|print|len|str|int|float|bool|dict|list|set|tuple|isinstance|getattr|setattr|hasattr|range|enumerate|zip|sorted|open|super|type|repr|min|max|sum|any|all|format|iter|next|map|filter)$/;

function stringText(node: Node): { prefix: string; parts: Node[] } {
  const start = node.namedChildren.find((c) => c?.type === 'string_start');
  const prefix = (start?.text ?? '').replace(/["']+$/, '').toLowerCase();
  return {
    prefix,
    parts: node.namedChildren.filter(
      (c): c is Node => c !== null && c.type !== 'string_start' && c.type !== 'string_end',
    ),
  };
}

const locustFiles = new WeakMap<object, boolean>();
/** Whether the file of a node imports locust (load tests whose `self.client` calls the application). */
function importsLocust(n: Node): boolean {
  const tree = n.tree as object;
  let v = locustFiles.get(tree);
  if (v === undefined)
    locustFiles.set(tree, (v = /^\s*(from\s+locust\b|import\s+locust\b)/m.test(n.tree.rootNode.text)));
  return v;
}

interface Init {
  readonly params: string[];
  readonly defaults: (Part[] | null)[];
  /** Fields set from the parameters (or from such fields), and each assignment in order. */
  readonly fed: Set<string>;
  readonly sets: { field: string; value: Node }[];
}

const RETURNS: ReadonlySet<string> = new Set(['return_statement']);

const pythonRules: LanguageRules = ({ file, sink, scope }) => {
  const prefixes = new Map<string, string>(); // APIRouter / Blueprint var → prefix
  const clients = new Map<string, Part[]>();
  /** The library of a client variable when it is not httpx/requests (`aiohttp`). */
  const clientLib = new Map<string, string>();
  const flaskApps = new Set<string>();
  /** Variables holding a Kafka consumer (kafka-python `KafkaConsumer`, confluent-kafka `Consumer`), whatever their name. */
  const kafkaConsumers = new Set<string>();
  /** Names holding a Kafka producer (`kp = KafkaProducer(…)`, `self.client = AIOKafkaProducer(…)`), whatever they are called. */
  const kafkaProducers = new Set<string>();
  /** Imported names: as a module (`from app import orders` → app/orders) and as a symbol of a module (→ app). */
  const imports = new Map<string, { module: string; symbolOf: string }>();
  /** Names a module is imported under (`import config`, `import app.config as cfg`): `config.X` is another file's. */
  const moduleNames = new Set<string>();
  /** The file imports every name of a module (`from config import *`): a name it never declares may be one. */
  let starImport = false;
  /** The file imports a NATS client: its publish/request/subscribe calls are NATS operations. */
  let natsFile = false;
  /** The file imports a web framework whose route decorators can be applied by hand (`app.get("/p")(handler)`). */
  let webFile = false;
  const includedHere = new Set<string>();
  /** The classes this file defines (read once, when a capitalised call needs it). */
  let classNames: Set<string> | undefined;
  /** Each class's `__init__` as an object summary reads it (by the class node's id). */
  const inits = new Map<number, Init | null>();

  /** A function's parameters after `self`/`cls`, with their defaults (null: none); undefined with `*args`/`**kw`. */
  function paramsOf(fn: Node): { names: string[]; defaults: (Part[] | null)[] } | undefined {
    const all = (fn.childForFieldName('parameters')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'comment',
    );
    if (all.some((x) => /splat|keyword_separator|positional_separator/.test(x.type))) return undefined;
    const own = all.filter((x, i) => !(i === 0 && /^(self|cls)$/.test(x.text)));
    const names = own.map((x) =>
      x.type === 'identifier' ? x.text : ((x.childForFieldName('name') ?? x.namedChild(0))?.text ?? ''),
    );
    const defaults = own.map((x) => {
      const v = x.childForFieldName('value');
      return v ? (v.type === 'none' ? [] : evaluate(v)) : null;
    });
    return { names, defaults };
  }

  /**
   * `__init__` of a class: its parameters, and the fields it sets (`self.x = …`) whose value uses one of them
   * or such a field, in order (ADR 0062). Those fields are known only where the object is created.
   */
  function initOf(cls: Node): Init | undefined {
    const cached = inits.get(cls.id);
    if (cached !== undefined) return cached ?? undefined;
    inits.set(cls.id, null);
    const init = (cls.childForFieldName('body')?.namedChildren ?? []).find(
      (m) => m?.type === 'function_definition' && m.childForFieldName('name')?.text === '__init__',
    );
    const params = init ? paramsOf(init) : undefined;
    if (!init || !params || params.names.length === 0) return undefined;
    const fed = new Set<string>();
    const sets: { field: string; value: Node }[] = [];
    const uses = (n: Node): boolean =>
      (n.type === 'identifier' && params.names.includes(n.text) && n.parent?.type !== 'keyword_argument') ||
      (n.type === 'attribute' &&
        n.childForFieldName('object')?.text === 'self' &&
        fed.has(n.childForFieldName('attribute')?.text ?? '')) ||
      n.namedChildren.some((c) => c !== null && uses(c));
    const visit = (n: Node, depth: number): void => {
      if (depth > 64 || n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda')
        return;
      if (n.type === 'assignment') {
        const left = n.childForFieldName('left');
        const right = n.childForFieldName('right');
        const field =
          left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self'
            ? left.childForFieldName('attribute')?.text
            : undefined;
        if (field && right && uses(right)) {
          fed.add(field);
          sets.push({ field, value: right });
        }
        return;
      }
      for (const c of n.namedChildren) if (c) visit(c, depth + 1);
    };
    const body = init.childForFieldName('body');
    if (body) visit(body, 0);
    const out: Init = { params: params.names, defaults: params.defaults, fed, sets };
    inits.set(cls.id, out);
    return out;
  }

  /** `self.base_url` in a method of a class whose `__init__` sets it from its arguments: the object's field. */
  function ctorField(node: Node): Part[] | undefined {
    if (node.childForFieldName('object')?.text !== 'self') return undefined;
    const attr = node.childForFieldName('attribute')?.text ?? '';
    let cls: Node | null = node.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    return cls && initOf(cls)?.fed.has(attr) ? [{ ref: `${FIELD_REF}${attr}` }] : undefined;
  }

  /** A class whose methods call or publish with its fields: an object summary, run where it is created. */
  function summariseClass(cls: Node): void {
    const name = cls.childForFieldName('name')?.text;
    const init = initOf(cls);
    const uses = sink.fieldUses.filter((u) => u.loc.line >= lineOf(cls) && u.loc.line <= cls.endPosition.row + 1);
    if (!name || !init || uses.length === 0) return;
    const methods: MethodSpan[] = [];
    for (const m of cls.childForFieldName('body')?.namedChildren ?? []) {
      const fn = m?.type === 'decorated_definition' ? m.childForFieldName('definition') : m;
      const mn = fn?.type === 'function_definition' ? fn.childForFieldName('name')?.text : undefined;
      const ps = fn && mn && mn !== '__init__' ? paramsOf(fn) : undefined;
      if (fn && mn && ps)
        methods.push({
          name: mn,
          params: ps.names,
          defaults: ps.defaults,
          start: lineOf(fn),
          end: fn.endPosition.row + 1,
        });
    }
    const summary = summariseFromUses(
      name,
      file,
      {
        params: init.params,
        defaults: init.defaults,
        sets: init.sets.map(({ field, value }) => [field, evaluate(value)]),
      },
      methods,
      uses,
    );
    if (summary) (sink.facts.objClasses ??= []).push(summary);
  }

  /**
   * `OrdersClient(os.environ["ORDERS_URL"])` and `client.get(order_id)`: where object summaries of any
   * source are instantiated (ADR 0062), with the receiver's and the assigned variable's last name.
   */
  function objSite(call: Node, fn: Node): void {
    const list = (sink.facts.objSites ??= []);
    if (list.length >= MAX_SITES_PER_FILE) return;
    const last = fn.type === 'attribute' ? (fn.childForFieldName('attribute')?.text ?? '') : fn.text;
    const isNew = /^[A-Z]/.test(last) && (fn.type === 'identifier' || fn.type === 'attribute');
    if (!isNew && fn.type !== 'attribute') return;
    const argNodes = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'keyword_argument' && x.type !== 'comment',
    );
    if (argNodes.some((a) => /splat/.test(a.type)) || call.childForFieldName('arguments')?.type !== 'argument_list')
      return;
    const kw = keywords(call);
    const tail = (n: Node | null | undefined): string | undefined => n?.text.split('.').pop()?.replace(/\W.*$/, '');
    const parent = call.parent?.type === 'await' ? call.parent.parent : call.parent;
    const assigned = isNew && parent?.type === 'assignment' ? tail(parent.childForFieldName('left')) : undefined;
    const receiver = isNew ? undefined : tail(fn.childForFieldName('object'));
    list.push({
      name: last,
      ...(isNew ? { isNew } : {}),
      args: argNodes.map((a) => (a.type === 'none' ? [] : evaluate(a))),
      ...(kw.size ? { named: Object.fromEntries(kw) } : {}),
      ...(receiver ? { receiver } : {}),
      ...(assigned ? { assigned } : {}),
      loc: { file, line: lineOf(call) },
    });
  }

  /**
   * `self.EXCHANGE`, `cls.EXCHANGE` or `Publisher.EXCHANGE` inside class Publisher: the class attribute
   * assigned in the class body (`EXCHANGE = 'shop'`).
   */
  function classAttribute(node: Node): Part[] | undefined {
    const obj = node.childForFieldName('object')?.text;
    const attr = node.childForFieldName('attribute')?.text;
    let cls: Node | null = node.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    if (!cls || !attr || (obj !== 'self' && obj !== 'cls' && obj !== cls.childForFieldName('name')?.text))
      return undefined;
    for (const st of cls.childForFieldName('body')?.namedChildren ?? []) {
      const asg = st?.type === 'expression_statement' ? st.namedChild(0) : undefined;
      if (asg?.type !== 'assignment' || asg.childForFieldName('left')?.text !== attr) continue;
      const right = asg.childForFieldName('right');
      return right ? evaluate(right) : undefined;
    }
    return undefined;
  }

  function evaluate(node: Node): Part[] {
    switch (node.type) {
      case 'string': {
        const { parts } = stringText(node);
        // `''` has no content node: still a known value (pika's default exchange is `exchange=''`).
        if (parts.length === 0) return lit('');
        return concat(
          ...parts.map((c): Part[] =>
            c.type === 'interpolation' ? (c.namedChild(0) ? evaluate(c.namedChild(0)!) : [HOLE_PART]) : lit(c.text),
          ),
        );
      }
      case 'concatenated_string':
        return concat(...node.namedChildren.filter((c): c is Node => c !== null).map((c) => evaluate(c)));
      case 'binary_operator': {
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        const op = node.childForFieldName('operator')?.text;
        if (l && r && op === '+') return concat(evaluate(l), evaluate(r));
        // printf-style `"http://%s/orders/%s" % (host, oid)`: each conversion takes the next argument
        // (`%(name)s` the dict's key); `%%` is a percent sign.
        const tpl = l && r && op === '%' ? literal(evaluate(l)) : undefined;
        if (tpl !== undefined && r) {
          const items = r.type === 'tuple' ? r.namedChildren.filter((x): x is Node => x !== null) : [r];
          const dict = new Map<string, Node>();
          if (r.type === 'dictionary')
            for (const pair of r.namedChildren) {
              const k = pair?.childForFieldName('key');
              const v = pair?.childForFieldName('value');
              const key = k?.type === 'string' ? literal(evaluate(k)) : undefined;
              if (key !== undefined && v) dict.set(key, v);
            }
          const out: Part[][] = [];
          let next = 0;
          let last = 0;
          for (const m of tpl.matchAll(/%(?:\(([^)]*)\))?[-+# 0-9.]*([a-zA-Z%])/g)) {
            out.push(lit(tpl.slice(last, m.index)));
            last = m.index + m[0].length;
            if (m[2] === '%') {
              out.push(lit('%'));
              continue;
            }
            const a = m[1] !== undefined ? dict.get(m[1]) : r.type === 'dictionary' ? undefined : items[next++];
            out.push(a ? evaluate(a) : [HOLE_PART]);
          }
          out.push(lit(tpl.slice(last)));
          return concat(...out);
        }
        return [HOLE_PART];
      }
      case 'boolean_operator': {
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        if (!l || !r) return [HOLE_PART];
        const left = evaluate(l);
        const fb = literal(evaluate(r));
        const only = left.length === 1 ? left[0]! : undefined;
        if (only && fb !== undefined && 'env' in only) return [{ env: only.env, fallback: fb }];
        return left;
      }
      case 'identifier':
        return scope.param(node.text) ?? scope.lookup(node.text, node) ?? [{ ref: node.text }];
      case 'attribute':
        return ctorField(node) ?? scope.lookup(node.text, node) ?? classAttribute(node) ?? [{ ref: node.text }];
      case 'subscript': {
        const v = node.childForFieldName('value')?.text;
        const idx = node.childForFieldName('subscript');
        if (v === 'os.environ' && idx?.type === 'string') return [{ env: literal(evaluate(idx)) ?? '' }];
        // A configuration dict filled in this file (`app.config["ORDERS_URI"] = …`, `settings["x"] = …`).
        const key = idx?.type === 'string' ? literal(evaluate(idx)) : undefined;
        return (key !== undefined && v ? scope.lookup(`${v}[${key}]`) : undefined) ?? [HOLE_PART];
      }
      case 'call': {
        const fn = node.childForFieldName('function')?.text ?? '';
        const args = (node.childForFieldName('arguments')?.namedChildren ?? []).filter((x): x is Node => x !== null);
        if (/^(os\.environ\.get|os\.getenv|getenv|env|config)$/.test(fn) && args[0]?.type === 'string') {
          const name = literal(evaluate(args[0])) ?? '';
          const fb = args[1]
            ? literal(
                evaluate(
                  args[1].type === 'keyword_argument' ? (args[1].childForFieldName('value') ?? args[1]) : args[1],
                ),
              )
            : undefined;
          return [fb !== undefined ? { env: name, fallback: fb } : { env: name }];
        }
        // pika `channel.queue_declare(queue="")`: the declared queue's name, the broker's for `""` (`result.method.queue`).
        if (fn.endsWith('.queue_declare')) {
          const q = keywords(node).get('queue');
          const first = args[0] && args[0].type !== 'keyword_argument' ? args[0] : undefined;
          return declaredQueueName(
            q ?? (first && first.type !== 'none' ? evaluate(first) : undefined),
            file,
            lineOf(node),
          );
        }
        // `base_url.rstrip("/")`: the same URL as far as a route is concerned.
        const recvNode = node.childForFieldName('function')?.childForFieldName('object');
        if (recvNode && /\.(strip|rstrip|lstrip)$/.test(fn)) return evaluate(recvNode);
        // "{}/orders/{}".format(base, id)
        if (fn.endsWith('.format')) {
          const obj = node.childForFieldName('function')?.childForFieldName('object');
          const tpl = obj ? literal(evaluate(obj)) : undefined;
          if (tpl !== undefined) {
            const pieces = tpl.split(/\{[^}]*\}/);
            // `{}` takes the next argument, `{1}` the one it numbers, `{host}` the keyword argument of that name.
            const fields = [...tpl.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!.replace(/[:!].*$/, ''));
            const kw = keywords(node);
            const positional = args.filter((a) => a.type !== 'keyword_argument');
            const out: Part[][] = [];
            let next = 0;
            pieces.forEach((p, i) => {
              out.push(lit(p));
              if (i >= pieces.length - 1) return;
              const f = fields[i] ?? '';
              if (/^[A-Za-z_]\w*$/.test(f)) {
                out.push(kw.get(f) ?? [HOLE_PART]);
                return;
              }
              const a = positional[/^\d+$/.test(f) ? Number(f) : next++];
              out.push(a ? evaluate(a) : [HOLE_PART]);
            });
            return concat(...out);
          }
        }
        // A function of another module or class (`urls.order_url(base, order_id)`): its return summary.
        if (/^[A-Za-z_][\w.]*$/.test(fn) && !args.some((a) => /splat/.test(a.type))) {
          const kw = keywords(node);
          return sink.callValue(
            fn,
            args.filter((a) => a.type !== 'keyword_argument').map((a) => evaluate(a)),
            kw.size ? Object.fromEntries(kw) : undefined,
          );
        }
        return [HOLE_PART];
      }
      case 'list':
      case 'tuple':
        return lit(node.namedChildren.map((x) => (x ? (nameOf(evaluate(x)) ?? '') : '')).join(LIST_SEP));
      case 'parenthesized_expression':
        return node.namedChild(0) ? evaluate(node.namedChild(0)!) : [HOLE_PART];
      case 'conditional_expression': {
        // `"details" if os.environ.get("X") is None else os.environ.get("X")`: the setting, with the
        // literal branch as its default.
        const [a, , b] = node.namedChildren;
        return a && b ? settingOrDefault(evaluate(a), evaluate(b)) : [HOLE_PART];
      }
      default:
        return [HOLE_PART];
    }
  }

  const declarations: Record<string, (node: Node) => void> = {
    assignment(node) {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (left && right && (left.type === 'identifier' || left.type === 'attribute')) {
        // `url = …` inside a function is local to it (Python's rule); `self.url = …` is the object's.
        scope.add(left.text, right, left.type === 'identifier');
        classify(left.text, right);
        // pika: `result = channel.queue_declare(queue="", exclusive=True)`, then `result.method.queue` is its name.
        if (
          left.type === 'identifier' &&
          right.type === 'call' &&
          /\.queue_declare$/.test(right.childForFieldName('function')?.text ?? '')
        )
          scope.add(`${left.text}.method.queue`, right, true);
        // A pydantic `BaseSettings` field (`service_name: str = 'x'`): the environment variable of its name
        // (case-insensitive, pydantic's default), the declared value when unset.
        if (left.type === 'identifier' && isSettingsField(node)) {
          // `Field("v1", env="API_VERSION")` / `Field(default="v1")`: pydantic's declared default and variable.
          const field =
            right.type === 'call' && /^(pydantic\.)?Field$/.test(right.childForFieldName('function')?.text ?? '')
              ? right
              : undefined;
          const fieldArgs = field ? keywords(field) : undefined;
          const fieldFirst = field?.childForFieldName('arguments')?.namedChildren.find((x) => x?.type !== 'comment');
          const fallback = field
            ? literal(
                fieldArgs!.get('default') ??
                  (fieldFirst && fieldFirst.type !== 'keyword_argument' ? evaluate(fieldFirst) : undefined),
              )
            : literal(evaluate(right));
          const env = (fieldArgs && literal(fieldArgs.get('env'))) ?? left.text.toUpperCase();
          scope.set(left.text, [{ env, ...(fallback !== undefined ? { fallback } : {}) }]);
        }
        if (left.text === '__tablename__' || left.text === 'db_table') {
          const t = literal(evaluate(right));
          if (t) sink.data('table', t, { file, line: lineOf(node) });
        }
      }
      // `app.config["ORDERS_URI"] = "http://{}/orders".format(os.environ.get("ORDERS_ADDR"))`: a key of a
      // dict, whichever function fills it, is one value of the file.
      const obj = left?.type === 'subscript' ? left.childForFieldName('value') : undefined;
      const idx = left?.type === 'subscript' ? left.childForFieldName('subscript') : undefined;
      const key = idx?.type === 'string' ? literal(evaluate(idx)) : undefined;
      if (obj && right && key !== undefined) scope.add(`${obj.text}[${key}]`, right);
      // A dict literal (`details = {"name": "http://…", "endpoint": "details"}`): each string key is a
      // value of `details["name"]`, in whichever function of the file it is read.
      if (left?.type === 'identifier' && right?.type === 'dictionary')
        for (const pair of right.namedChildren) {
          const k = pair?.type === 'pair' ? pair.childForFieldName('key') : null;
          const v = pair?.childForFieldName('value');
          const name = k?.type === 'string' ? literal(evaluate(k)) : undefined;
          if (name !== undefined && v) scope.add(`${left.text}[${name}]`, v);
        }
    },
    // A settings object built with keyword arguments (`ChatConfig(agentUrl=f"http://{os.getenv('AGENT')}/prompt")`,
    // a class of this file or named like settings): `self.config.agentUrl` elsewhere in the source is that value.
    call(node) {
      const fn = node.childForFieldName('function');
      const cls = fn?.type === 'identifier' ? fn.text : undefined;
      if (!cls || !/^[A-Z]/.test(cls)) return;
      classNames ??= new Set([...node.tree.rootNode.text.matchAll(/^class\s+(\w+)/gm)].map((m) => m[1]!));
      if (!/(Config|Settings|Options)$/.test(cls) && !classNames.has(cls)) return;
      for (const a of node.childForFieldName('arguments')?.namedChildren ?? []) {
        const name = a?.type === 'keyword_argument' ? a.childForFieldName('name')?.text : undefined;
        const value = a?.childForFieldName('value');
        if (name && value) scope.add(name, value);
      }
    },
    with_item(node) {
      const v = node.childForFieldName('value');
      if (v?.type === 'as_pattern') {
        const call = v.namedChild(0);
        const alias = v.childForFieldName('alias') ?? v.namedChild(1);
        if (call && alias) classify(alias.text, call);
      }
    },
    import_from_statement(node) {
      const mod = node.childForFieldName('module_name');
      if (!mod) return;
      if (PY_NATS_IMPORT.test(mod.text)) natsFile = true;
      if (PY_WEB_IMPORT.test(mod.text)) webFile = true;
      const base = moduleOf(file, mod);
      for (const n of node.namedChildren) {
        if (!n || n.id === mod.id) continue;
        if (n.type === 'wildcard_import') starImport = true;
        const name =
          n.type === 'aliased_import'
            ? n.childForFieldName('name')?.text
            : n.type === 'dotted_name'
              ? n.text
              : undefined;
        const local = n.type === 'aliased_import' ? n.childForFieldName('alias')?.text : name;
        if (name && local) imports.set(local, { module: joinDots(base, name), symbolOf: base });
      }
    },
    import_statement(node) {
      for (const n of node.namedChildren) {
        const imported = (n?.type === 'aliased_import' ? n.childForFieldName('name') : n)?.text ?? '';
        if (PY_NATS_IMPORT.test(imported)) natsFile = true;
        if (PY_WEB_IMPORT.test(imported)) webFile = true;
        if (n?.type === 'dotted_name') moduleNames.add(n.text);
        if (n?.type !== 'aliased_import') continue;
        const alias = n.childForFieldName('alias')?.text;
        if (alias) moduleNames.add(alias);
        const name = n.childForFieldName('name')?.text;
        const local = n.childForFieldName('alias')?.text;
        if (name && local)
          imports.set(local, {
            module: name.replace(/\./g, '/'),
            symbolOf: name.replace(/\./g, '/').replace(/\/[^/]*$/, ''),
          });
      }
    },
    subscript(node) {
      const v = node.childForFieldName('value');
      const idx = node.childForFieldName('subscript');
      if (v && /(^|\.)(db|database|mongo_db)$/i.test(v.text) && idx?.type === 'string') {
        const name = literal(evaluate(idx));
        if (name) sink.data('collection', name, { file, line: lineOf(node) });
      }
    },
  };

  /** An assignment directly in the body of a class deriving from pydantic's `BaseSettings`. */
  function isSettingsField(asg: Node): boolean {
    const cls = asg.parent?.type === 'expression_statement' ? asg.parent.parent?.parent : undefined;
    if (cls?.type !== 'class_definition') return false;
    const bases = cls.childForFieldName('superclasses')?.namedChildren ?? [];
    return bases.some((b) => b !== null && /(^|\.)BaseSettings$/.test(b.text));
  }

  function classify(name: string, value: Node): void {
    let v = value;
    while (v.type === 'await' || v.type === 'parenthesized_expression') v = v.namedChild(0) ?? v;
    if (v.type !== 'call') return;
    const fn = v.childForFieldName('function')?.text ?? '';
    // Keyword arguments are evaluated only for the calls below: during the walk, evaluating any call's
    // arguments would fix their names' values before the file's later declarations are known.
    let kwCache: Map<string, Part[]> | undefined;
    const kw = { get: (k: string): Part[] | undefined => (kwCache ??= keywords(v)).get(k) };
    if (/^(APIRouter|fastapi\.APIRouter|Blueprint|flask\.Blueprint)$/.test(fn))
      prefixes.set(name, literal(kw.get('prefix') ?? kw.get('url_prefix')) ?? '');
    if (/^(Flask|flask\.Flask|Blueprint|flask\.Blueprint)$/.test(fn)) flaskApps.add(name);
    // `from httpx import AsyncClient`: the bare name is httpx's client.
    const httpxClient = /^(Async)?Client$/.test(fn) && imports.get(fn)?.module === `httpx/${fn}`;
    if (httpxClient || /^(httpx\.(Async)?Client|requests\.Session|Session)$/.test(fn))
      clients.set(name, kw.get('base_url') ?? []);
    // aiohttp.ClientSession(base_url) — positional or keyword
    if (/^(aiohttp\.)?ClientSession$/.test(fn)) {
      const first = v
        .childForFieldName('arguments')
        ?.namedChildren.find((x) => x !== null && x.type !== 'keyword_argument');
      clients.set(name, kw.get('base_url') ?? (first ? evaluate(first) : []));
      clientLib.set(name, 'aiohttp');
    }
    if (/^((kafka|confluent_kafka)\.)?(KafkaConsumer|Consumer|DeserializingConsumer|AIOKafkaConsumer)$/.test(fn))
      kafkaConsumers.add(name);
    if (/^((kafka|confluent_kafka|aiokafka)\.)?(KafkaProducer|Producer|SerializingProducer|AIOKafkaProducer)$/.test(fn))
      kafkaProducers.add(name);
    // aio-pika: `exchange = await channel.declare_exchange(name, type=…)`, `queue = await channel.declare_queue(name)`.
    const declared = /\.declare_(exchange|queue)$/.exec(fn);
    if (declared) {
      const first = v.childForFieldName('arguments')?.namedChildren.find((x) => x !== null && x.type !== 'comment');
      // The name positional or as `name=` (aio-pika's keyword): `declare_queue(name=self.service_name, durable=True)`.
      const named = v
        .childForFieldName('arguments')
        ?.namedChildren.find((x) => x?.type === 'keyword_argument' && x.childForFieldName('name')?.text === 'name')
        ?.childForFieldName('value');
      const arg = first?.type === 'keyword_argument' ? (named ?? undefined) : first;
      const parts = !arg || arg.type === 'none' ? [] : paramOr(arg, v);
      const kind = declared[1] as 'exchange' | 'queue';
      amqpVars.set(`${ownerOf(value)}:${name}`, { kind, name: parts, line: lineOf(v) });
      const n = parts.length && !parts.some((p) => 'ref' in p) ? nameOf(parts) : undefined;
      const loc = { file, line: lineOf(v) };
      if (n !== undefined && kind === 'queue' && n !== '') sink.queue(n, loc);
      // A queue constant of another module (`declare_queue(QUEUE)`, `from config import QUEUE`): resolved later.
      else if (kind === 'queue' && importedName(parts, v))
        sink.topicRefs.push({ side: 'queue', broker: 'rabbitmq', parts, loc });
      const second = v
        .childForFieldName('arguments')
        ?.namedChildren.filter((x) => x !== null && x.type !== 'keyword_argument' && x.type !== 'comment')[1];
      const type = rawName(kw.get('type') ?? (second ? evaluate(second) : undefined))
        ?.replace(/^ExchangeType\./i, '')
        .toLowerCase();
      const xt = type ? exchangeType(type) : undefined;
      if (n !== undefined && kind === 'exchange' && xt) sink.exchange(n, xt, loc);
      else if (kind === 'exchange' && xt && parts.some((p) => 'ref' in p && !isFieldRef(p)))
        sink.exchangeRefs.push({ parts, type: xt, loc });
      // declare_exchange(event_store, type='topic') with the name a parameter: each caller declares it.
      const within = withinOf(v);
      if (kind === 'exchange' && xt && within && parts.some((p) => 'ref' in p && within.params.includes(p.ref)))
        sink.messageWrappers.push({
          within,
          kind: 'exchange',
          broker: 'rabbitmq',
          exchange: parts,
          key: [],
          exchangeType: xt,
          loc,
        });
    }
  }

  /** aio-pika exchanges and queues held in variables, by `<function start>:<name>`; a queue's name [] when unnamed. */
  const amqpVars = new Map<string, { kind: 'exchange' | 'queue'; name: Part[]; line: number }>();
  const ownerOf = (n: Node): number => {
    let f: Node | null = n.parent;
    while (f && f.type !== 'function_definition') f = f.parent;
    return f?.startIndex ?? -1;
  };
  /** A parameter of the function around `at` stays a reference (its callers give it), even when reassigned there. */
  function paramOr(arg: Node, at: Node): Part[] {
    if (arg.type === 'identifier' && withinOf(at)?.params.includes(arg.text)) return [{ ref: arg.text }];
    return evaluate(arg);
  }

  /**
   * aio-pika on declared variables: `exchange.publish(msg, routing_key=k)`, `channel.default_exchange.publish(…)`,
   * `queue.bind(exchange, k)`, `queue.consume(cb)`. A name from the function's parameters makes the function a
   * wrapper (its callers name them, `event_producer(exchange, binding_key, msg)`); an unnamed queue is the
   * broker's, named after its declaration.
   */
  function onAioPika(call: Node, fn: Node, name: string, receiver: string): void {
    if (fn.type !== 'attribute' || !/^(publish|bind|consume)$/.test(name)) return;
    const mine = amqpVars.get(`${ownerOf(call)}:${receiver}`);
    const isDefault = name === 'publish' && /(^|\.)default_exchange$/.test(receiver);
    const argNodes = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'comment',
    );
    const kwNode = (k: string): Node | undefined =>
      argNodes
        .find((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === k)
        ?.childForFieldName('value') ?? undefined;
    const positional = argNodes.filter((a) => a.type !== 'keyword_argument');
    const loc = { file, line: lineOf(call) };
    // `exchange.publish(aio_pika.Message(…), routing_key=k)` on an exchange object from a field, `app.state`
    // or a `Depends` parameter: a publish to the source's exchange (SOURCE_EXCHANGE), in a file using aio-pika.
    if (!mine && !isDefault) {
      const msg = kwNode('message') ?? positional[0];
      const keyNode = kwNode('routing_key') ?? positional[1];
      if (name !== 'publish' || !msg || !keyNode || !usesAioPika(call) || !isAioMessage(msg)) return;
      const keyParts = evaluate(keyNode);
      const key = nameOf(keyParts);
      if (key !== undefined)
        sink.publish('rabbitmq', SOURCE_EXCHANGE, key, loc, undefined, undefined, fieldRefOf(keyParts));
      return;
    }
    const within = withinOf(call);
    const hasParam = (...parts: Part[][]): boolean =>
      parts.some((x) => x.some((p) => 'ref' in p && within?.params.includes(p.ref)));
    const queueName = (q: Part[]): Part[] => declaredQueueName(q, file, mine?.line ?? 0);
    if (name === 'publish' && (isDefault || mine?.kind === 'exchange')) {
      const keyNode = kwNode('routing_key') ?? positional[1];
      const key = keyNode ? paramOr(keyNode, call) : [HOLE_PART];
      const ex = isDefault ? [] : mine!.name;
      if (within && hasParam(ex, key))
        sink.messageWrappers.push({ within, broker: 'rabbitmq', exchange: ex, key, loc });
      // A name from another module's constants (`routing_key=QUEUE`, `from config import QUEUE`): resolved later.
      const late = [ex, key].map((x) => importedName(x, call));
      if (late.some(Boolean) && [ex, key].every((x, i) => late[i] || x.every((p) => 'lit' in p)))
        sink.topicRefs.push({ side: 'publish', broker: 'rabbitmq', parts: key, exchange: ex, loc });
      else sink.publish('rabbitmq', nameOf(ex) ?? '', nameOf(key) ?? '{}', loc, undefined, undefined, fieldRefOf(key));
    } else if (name === 'bind' && mine?.kind === 'queue') {
      const exNode = kwNode('exchange') ?? positional[0];
      const exVar = exNode ? amqpVars.get(`${ownerOf(call)}:${exNode.text}`) : undefined;
      const exOf = exNode ? paramOr(exNode, call) : [HOLE_PART];
      // An exchange object whose declaration the value flow does not reach (`exchange=self.exchange`).
      const unknown = !exVar && exNode && !hasParam(exOf) && exOf.some((p) => 'ref' in p || 'hole' in p);
      const ex = exVar?.kind === 'exchange' ? exVar.name : unknown ? lit(SOURCE_EXCHANGE) : exOf;
      const keyNode = kwNode('routing_key') ?? positional[1];
      const key = keyNode ? paramOr(keyNode, call) : [];
      if (within && hasParam(ex, key, mine.name))
        sink.messageWrappers.push({
          within,
          kind: 'bind',
          broker: 'rabbitmq',
          exchange: ex,
          key,
          queue: mine.name,
          loc,
        });
      sink.binding(nameOf(ex) ?? '{}', nameOf(queueName(mine.name)) ?? '{}', nameOf(key) ?? '', loc);
    } else if (name === 'consume' && mine?.kind === 'queue') {
      // A queue named by the object's field: its class's summary consumes where the object is created.
      if (mine.name.some(isFieldRef)) {
        sink.fieldUses.push({ kind: 'consume', queue: mine.name, loc });
        return;
      }
      if (within && hasParam(mine.name))
        sink.messageWrappers.push({
          within,
          kind: 'consume',
          broker: 'rabbitmq',
          exchange: [],
          key: [],
          queue: mine.name,
          loc,
        });
      if (importedName(mine.name, call))
        sink.topicRefs.push({ side: 'consume', broker: 'rabbitmq', parts: mine.name, loc });
      else sink.consume('rabbitmq', nameOf(queueName(mine.name)) ?? '{}', loc);
    }
  }

  /** Whether the file imports aio-pika (its `Message` and exchanges are aio-pika's). */
  let aioPika: boolean | undefined;
  const usesAioPika = (n: Node): boolean =>
    (aioPika ??= /^\s*(import aio_pika|from aio_pika\b)/m.test(n.tree.rootNode.text));
  /** `aio_pika.Message(…)`, `Message(…)`, or a name assigned one in the same function. */
  function isAioMessage(n: Node): boolean {
    const isCall = (v: Node): boolean =>
      v.type === 'call' && /^(aio_pika\.)?Message$/.test(v.childForFieldName('function')?.text ?? '');
    if (isCall(n)) return true;
    if (n.type !== 'identifier') return false;
    let f: Node | null = n.parent;
    while (f && f.type !== 'function_definition') f = f.parent;
    const re = new RegExp(`^\\s*${n.text}\\s*(:[^=]*)?=\\s*(aio_pika\\.)?Message\\(`, 'm');
    return f !== null && re.test(f.text);
  }

  function keywords(call: Node): Map<string, Part[]> {
    const out = new Map<string, Part[]>();
    for (const a of call.childForFieldName('arguments')?.namedChildren ?? []) {
      if (a?.type !== 'keyword_argument') continue;
      const k = a.childForFieldName('name')?.text;
      const v = a.childForFieldName('value');
      if (k && v) out.set(k, evaluate(v));
    }
    return out;
  }

  function onMount(call: Node): void {
    const fn = call.childForFieldName('function');
    const method = fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text : undefined;
    if (method !== 'include_router' && method !== 'register_blueprint') return;
    const target = call.childForFieldName('arguments')?.namedChild(0);
    const kw = keywords(call);
    const prefix = literal(kw.get('prefix') ?? kw.get('url_prefix'));
    if (!target || prefix === undefined) return;
    if (prefixes.has(target.text)) {
      // FastAPI prepends include prefixes; Flask's url_prefix replaces the blueprint's own.
      prefixes.set(
        target.text,
        method === 'include_router' ? joinPath(prefix, prefixes.get(target.text) ?? '') : prefix,
      );
      includedHere.add(target.text);
      return;
    }
    // A router or blueprint defined in another module: `orders.router` (module import) or `orders_router`
    // (symbol import). FastAPI prepends the prefix; Flask's `url_prefix` replaces the blueprint's own.
    const head = target.type === 'attribute' ? target.childForFieldName('object')?.text : target.text;
    const imp = head ? imports.get(head) : undefined;
    if (imp)
      sink.facts.mounts.push({
        prefix,
        target: target.type === 'attribute' ? imp.module : imp.symbolOf,
        loc: { file, line: lineOf(call) },
        ...(method === 'register_blueprint' ? { replace: true } : {}),
      });
  }

  /** The function around a node: its name and parameters, `self`/`cls` left out (a wrapper of other calls). */
  const withins = new Map<number, Within | undefined>();
  function withinOf(n: Node): Within | undefined {
    let f: Node | null = n.parent;
    while (f && f.type !== 'function_definition') f = f.parent;
    if (!f) return undefined;
    // Once per function: every call inside it asks.
    if (withins.has(f.id)) return withins.get(f.id);
    const w = withinOfFunction(f);
    withins.set(f.id, w);
    return w;
  }
  function withinOfFunction(f: Node): Within | undefined {
    const name = f.childForFieldName('name')?.text;
    if (!name) return undefined;
    const all = (f.childForFieldName('parameters')?.namedChildren ?? []).filter((x): x is Node => x !== null);
    const nameOfParam = (x: Node): string =>
      x.type === 'identifier' ? x.text : ((x.childForFieldName('name') ?? x.namedChild(0))?.text ?? '');
    const own = all.filter((x, i) => !(i === 0 && /^(self|cls)$/.test(nameOfParam(x))));
    const defaults = own.map((x) => {
      const v = x.childForFieldName('value');
      return v ? (v.type === 'none' ? [] : evaluate(v)) : undefined;
    });
    return { name, params: own.map(nameOfParam), defaults };
  }

  /**
   * `client.publish(self.subject, msg)`, `api.fetch_order(base_url, id)`, `fetch_order(base_url, id)`: a call
   * of a function or of a method of an object, kept with its positional arguments in case a wrapper of the source (HTTP or publish) has that name.
   */
  function site(call: Node, fn: Node, callee: string): void {
    if (fn.type === 'identifier' ? PY_BUILTINS.test(callee) : fn.type !== 'attribute') return;
    if (PY_NAMES.has(callee) || /^(log|logger|logging)$/.test(fn.childForFieldName('object')?.text ?? '')) return;
    const argNodes = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'keyword_argument' && x.type !== 'comment',
    );
    const kw = keywords(call);
    if (
      argNodes.length + kw.size === 0 ||
      argNodes.some((a) => a.type === 'list_splat' || a.type === 'dictionary_splat')
    )
      return;
    const args = argNodes.map((a) => (a.type === 'none' ? [] : evaluate(a)));
    const within = withinOf(call);
    sink.sites.push({
      name: callee,
      args,
      loc: { file, line: lineOf(call) },
      ...(kw.size ? { named: Object.fromEntries(kw) } : {}),
      ...(within ? { within } : {}),
    });
  }

  /**
   * Whether an identifier unknown in this file names a constant of another module: imported by name
   * (`from config import QUEUE`), an attribute of an imported module (`config.QUEUE`, `cfg.QUEUE`), or any
   * name under a star import (`from config import *`). Read from every scope: the import is the module's.
   */
  function lateRef(ref: string, at: Node): boolean {
    const m = /^(?:([A-Za-z_][\w.]*)\.)?([A-Za-z_]\w*)$/.exec(ref);
    if (!m) return false;
    // A name the code around binds itself (`for queue in …`, `with … as q`, `lambda q: …`) is its own, not the
    // module's: under a star import it would otherwise take any constant of the source with that name.
    const head = (m[1] ?? ref).split('.')[0]!;
    if (boundAround(head, at)) return false;
    if (m[1] === undefined) return imports.has(ref) || starImport;
    return moduleNames.has(m[1]) || imports.has(m[1]);
  }

  /** Names each scope (a function, a lambda, a comprehension, the module) binds, by node: parameters and targets. */
  const scopeBindings = new Map<number, Set<string>>();
  const SCOPES = new Set([
    'function_definition',
    'lambda',
    'list_comprehension',
    'set_comprehension',
    'dictionary_comprehension',
    'generator_expression',
    'module',
  ]);
  const PATTERNS = new Set([
    'pattern_list',
    'tuple_pattern',
    'list_pattern',
    'tuple',
    'list',
    'parenthesized_expression',
    'list_splat_pattern',
    'as_pattern_target',
    'expression_list',
  ]);
  function bindingsOf(block: Node): Set<string> {
    const known = scopeBindings.get(block.id);
    if (known) return known;
    const out = new Set<string>();
    const target = (t: Node | null): void => {
      if (!t) return;
      if (t.type === 'identifier') out.add(t.text);
      else if (PATTERNS.has(t.type)) for (const c of t.namedChildren) target(c);
    };
    for (const p of block.childForFieldName('parameters')?.namedChildren ?? [])
      if (p) target(p.type === 'identifier' ? p : (p.childForFieldName('name') ?? p.namedChild(0)));
    // The block's own statements; a nested function or class has a scope of its own.
    const stack: Node[] = block.namedChildren.filter((c): c is Node => c !== null);
    while (stack.length) {
      const n = stack.pop()!;
      if (n.type === 'function_definition' || n.type === 'class_definition') {
        target(n.childForFieldName('name'));
        continue;
      }
      if (n.type === 'lambda') continue;
      if (n.type === 'for_statement' || n.type === 'for_in_clause') target(n.childForFieldName('left'));
      else if (n.type === 'assignment' || n.type === 'augmented_assignment') target(n.childForFieldName('left'));
      else if (n.type === 'named_expression') target(n.childForFieldName('name'));
      else if (n.type === 'as_pattern') target(n.childForFieldName('alias'));
      for (const c of n.namedChildren) if (c) stack.push(c);
    }
    scopeBindings.set(block.id, out);
    return out;
  }
  /** Whether `name` is bound by the code around `at` (any enclosing scope, the module's own statements too). */
  function boundAround(name: string, at: Node): boolean {
    for (let b: Node | null = at; b; b = b.parent) if (SCOPES.has(b.type) && bindingsOf(b).has(name)) return true;
    return false;
  }

  /**
   * A name made of literals and constants of other modules only (`lateRef`), at least one of them: no parameter
   * of the function around `at`, no field, nothing of run time.
   */
  function importedName(parts: readonly Part[], at: Node): boolean {
    const params = withinOf(at)?.params;
    let imported = false;
    for (const p of parts) {
      if ('lit' in p) continue;
      if (!('ref' in p) || params?.includes(p.ref) || !lateRef(p.ref, at)) return false;
      imported = true;
    }
    return imported;
  }

  function onCall(call: Node): void {
    const fn = call.childForFieldName('function');
    if (!fn) return;
    const callee = fn.type === 'attribute' ? (fn.childForFieldName('attribute')?.text ?? '') : fn.text;
    site(call, fn, callee);
    objSite(call, fn);
    // A route decorator applied by hand to one handler: `app.get("/p")(handler)`.
    if (webFile && fn.type === 'call' && (call.childForFieldName('arguments')?.namedChildren.length ?? 0) === 1)
      routeDecorator(fn, call);
    onAioPika(call, fn, callee, fn.type === 'attribute' ? (fn.childForFieldName('object')?.text ?? '') : '');
    if (natsFile && fn.type === 'attribute' && PY_NATS_METHODS.has(callee)) {
      const argNodes = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
        (x): x is Node => x !== null && x.type !== 'keyword_argument' && x.type !== 'comment',
      );
      const receiver = fn.childForFieldName('object')?.text ?? '';
      const args = argNodes.map((a) => evaluate(a));
      pyNatsCall(call, callee, receiver, args, keywords(call), withinOf(call), file, sink);
    }
    if (fn.type === 'attribute' && (callee === 'add_api_route' || callee === 'add_url_rule'))
      onAddRoute(call, fn, callee);
    if (fn.type === 'attribute' && MONGO_METHODS.has(callee)) onMongoAttribute(call, fn);
    if (!PY_NAMES.has(callee) && !sharedRuleName(callee) && fn.text !== 'kafka.KafkaConsumer') return;
    const argNodes = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'keyword_argument' && x.type !== 'comment',
    );
    const args = argNodes.map((a) => evaluate(a));
    const named = keywords(call);
    const loc = { file, line: lineOf(call) };
    const name = fn.type === 'attribute' ? (fn.childForFieldName('attribute')?.text ?? '') : fn.text;
    const receiver = fn.type === 'attribute' ? (fn.childForFieldName('object')?.text ?? '') : '';
    const receiverType = kafkaProducers.has(receiver) ? 'KafkaProducer' : undefined;
    sharedCallRules(
      { name, receiver, receiverType, args, named, loc, within: withinOf(call), lateRef: (ref) => lateRef(ref, call) },
      sink,
    );

    // kafka-python KafkaConsumer("a", "b", …), aiokafka AIOKafkaConsumer("a", …): the topics it subscribes to
    // (a topic constant of another module resolved with the source's constants).
    if (name === 'KafkaConsumer' || name === 'AIOKafkaConsumer' || fn.text === 'kafka.KafkaConsumer')
      for (const a of args)
        if (literal(a)) sink.consume('kafka', literal(a)!, loc);
        else if (importedName(a, call)) sink.topicRefs.push({ side: 'consume', parts: a, loc });
    // c = Consumer({...}); c.subscribe(["orders"]) — the shared rule knows receivers named like a consumer only.
    if (name === 'subscribe' && kafkaConsumers.has(receiver) && !/consumer|kafka/i.test(receiver) && args[0])
      for (const t of splitList(args[0])) sink.consume('kafka', t, loc);
    // Django urls
    if (
      !receiver &&
      (name === 'path' || name === 're_path' || name === 'url') &&
      args[0] &&
      argNodes[1] &&
      call.parent?.type === 'list'
    ) {
      // Regex routes are anchored per URLconf: re_path(r"^api/", include(…)) + re_path(r"^tags/(?P<slug>…)/$", …)
      const p = literal(args[0])?.replace(/^\^/, '').replace(/\$$/, '');
      if (p === undefined) return;
      const inc = /^include\(\s*["']([\w.]+)["']/.exec(argNodes[1].text);
      // path("api/", include("orders.urls")) prefixes every route of orders/urls.py.
      if (inc) sink.facts.mounts.push({ prefix: joinPath(p), target: inc[1]!.replace(/\./g, '/'), loc });
      else if (!/^include\(/.test(argNodes[1].text)) sink.endpoint('ANY', joinPath(p), 'django', loc, file);
      return;
    }
    // requests / httpx
    // Locust: `self.client` of an HttpUser, or `l.client` of the user or task set a task function is
    // given, is an HTTP client of the host under test (its front door).
    const isLib = HTTP_LIBS.has(receiver) || (/^\w+\.client$/.test(receiver) && importsLocust(call));
    if ((isLib || clients.has(receiver)) && (VERBS.has(name) || name === 'request')) {
      const method =
        name === 'request' ? (httpMethod(literal(args[0] ?? named.get('method'))) ?? 'GET') : httpMethod(name)!;
      const url = name === 'request' ? (args[1] ?? named.get('url')) : (args[0] ?? named.get('url'));
      if (url) {
        const full = withBase(clients.get(receiver), url);
        const client = isLib ? receiver : (clientLib.get(receiver) ?? 'httpx');
        const body = bodyFields(call);
        sink.call(method, full, client, loc, body ? { body } : {});
        // A function whose call takes its URL from a parameter: its callers (other modules included) make the call.
        const w = paramWrapper(withinOf(call), full);
        if (w && !PY_NAMES.has(w.name) && !/^(request|send|call|fetch|__\w+__)$/.test(w.name))
          sink.wrappers.push({ ...w, method, client, loc });
      }
    }
  }

  /**
   * The fields of a request body the code names (`json=`, `data=`, `content=`): a dict literal, a model
   * constructed with keywords (`PaymentPayload(metadata=meta, …)`), or a variable assigned one earlier in the
   * function, serialised or not (`.model_dump_json()`, `.model_dump()`, `.dict()`, `.json()`, `json.dumps(x)`);
   * nested values by path (`metadata.receiver`). Only fields with a value the evaluator knows something of.
   */
  function bodyFields(call: Node): Record<string, Part[]> | undefined {
    const arg = call
      .childForFieldName('arguments')
      ?.namedChildren.find(
        (a) => a?.type === 'keyword_argument' && /^(json|data|content)$/.test(a.childForFieldName('name')?.text ?? ''),
      )
      ?.childForFieldName('value');
    if (!arg) return undefined;
    const out: Record<string, Part[]> = {};
    const fn = ((): Node | null => {
      let f: Node | null = call.parent;
      while (f && f.type !== 'function_definition') f = f.parent;
      return f;
    })();
    /** The value last assigned to a local variable before `at` in the function. */
    const assigned = (name: string, at: Node): Node | undefined => {
      if (!fn) return undefined;
      let found: Node | undefined;
      for (const a of fn.descendantsOfType('assignment')) {
        if (!a || a.startIndex >= at.startIndex) continue;
        if (a.childForFieldName('left')?.text === name) found = a.childForFieldName('right') ?? undefined;
      }
      return found;
    };
    const walk = (n: Node, path: string, depth: number): void => {
      if (depth > 12) return;
      // Serialisations of a model or dict.
      if (n.type === 'call') {
        const f = n.childForFieldName('function');
        const args = (n.childForFieldName('arguments')?.namedChildren ?? []).filter((x): x is Node => x !== null);
        if (
          f?.type === 'attribute' &&
          /^(model_dump_json|model_dump|dict|json)$/.test(f.childForFieldName('attribute')?.text ?? '')
        ) {
          const obj = f.childForFieldName('object');
          if (obj) walk(obj, path, depth + 1);
          return;
        }
        if (f && /^(json\.dumps|jsonable_encoder)$/.test(f.text) && args[0] && args[0].type !== 'keyword_argument') {
          walk(args[0], path, depth + 1);
          return;
        }
        // A model constructed with keyword arguments (a capitalised class).
        if (f && /^[A-Z]\w*$/.test(f.type === 'attribute' ? (f.childForFieldName('attribute')?.text ?? '') : f.text))
          for (const a of args)
            if (a.type === 'keyword_argument') {
              const k = a.childForFieldName('name')?.text;
              const v = a.childForFieldName('value');
              if (k && v) walk(v, path ? `${path}.${k}` : k, depth + 1);
            }
        return;
      }
      if (n.type === 'dictionary') {
        for (const pair of n.namedChildren) {
          if (pair?.type !== 'pair') continue;
          const k = literal(evaluate(pair.childForFieldName('key')!));
          const v = pair.childForFieldName('value');
          if (k && /^\w+$/.test(k) && v) walk(v, path ? `${path}.${k}` : k, depth + 1);
        }
        return;
      }
      if (n.type === 'identifier') {
        const v = assigned(n.text, n);
        if (v && v.type !== 'identifier') {
          walk(v, path, depth + 1);
          return;
        }
      }
      if (!path) return;
      const parts = evaluate(n);
      if (parts.some((p) => !('hole' in p))) out[path] = parts;
    };
    walk(arg, '', 0);
    return Object.keys(out).length ? out : undefined;
  }

  /**
   * pymongo/motor collections reached by attribute access: `client.api_db.service_urls.find_one(…)` (a
   * database attribute of a client) and `db.orders.insert_one(…)` / `self.db.orders.find(…)` (a collection
   * attribute of a database): the collection is shared data under its own name.
   */
  function onMongoAttribute(call: Node, fn: Node): void {
    const coll = fn.childForFieldName('object');
    if (coll?.type !== 'attribute') return;
    const name = coll.childForFieldName('attribute')?.text ?? '';
    const holder = coll.childForFieldName('object');
    if (!name || name.startsWith('_') || !holder) return;
    const last = (n: Node): string =>
      n.type === 'attribute' ? (n.childForFieldName('attribute')?.text ?? '') : n.type === 'identifier' ? n.text : '';
    const isDb = (x: string): boolean => /^(db|database|mongo_?db|\w+_db)$/i.test(x);
    const isClient = (x: string): boolean => /^(\w*_)?(client|mongo|motor|mongo_client)$/i.test(x);
    const viaDb = isDb(last(holder));
    const inner = holder.type === 'attribute' ? holder.childForFieldName('object') : null;
    const viaClient = !viaDb && inner !== null && isClient(last(inner)) && /^\w+$/.test(last(holder));
    if (viaDb || viaClient) sink.data('collection', name, { file, line: lineOf(call) });
  }

  /**
   * `app.add_api_route(path, endpoint, methods=[…])` (FastAPI/Starlette, also on an `APIRouter`) and Flask's
   * `add_url_rule(rule, endpoint, view_func, methods=[…])`: every listed method, GET when `methods` is absent.
   */
  function onAddRoute(call: Node, fn: Node, callee: string): void {
    const recv = fn.childForFieldName('object')?.text ?? '';
    const first = call.childForFieldName('arguments')?.namedChildren.find((x) => x !== null && x.type !== 'comment');
    const kw = keywords(call);
    const path = routePath(
      first && first.type !== 'keyword_argument'
        ? evaluate(first)
        : kw.get(callee === 'add_api_route' ? 'path' : 'rule'),
    );
    if (path === undefined) return;
    const methods = kw.get('methods');
    const list = methods ? (nameOf(methods) ?? '').split(LIST_SEP).filter(Boolean) : ['GET'];
    const flask = callee === 'add_url_rule';
    const routerFile = prefixes.has(recv) && !includedHere.has(recv) ? file : undefined;
    for (const m of list)
      sink.endpoint(
        httpMethod(m) ?? 'ANY',
        joinPath(prefixes.get(recv) ?? '', path),
        flask ? 'flask' : 'fastapi',
        { file, line: lineOf(call) },
        routerFile,
        flask ? prefixes.get(recv) : undefined,
      );
  }

  function onDecorated(d: Node): void {
    for (const dec of d.namedChildren) {
      if (dec?.type !== 'decorator') continue;
      const call = dec.namedChild(0);
      if (call?.type === 'call') routeDecorator(call, dec);
    }
  }

  /**
   * `@app.get("/p")` on a function, or the same decorator applied by hand (`self.app.post("/prompt")(self.handle)`,
   * FastAPI/Flask): `call` is the decorator's call, `at` the node whose line the route gets.
   */
  function routeDecorator(call: Node, at: Node): void {
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'attribute') return;
    const verb = fn.childForFieldName('attribute')?.text ?? '';
    const recv = fn.childForFieldName('object')?.text ?? '';
    const first = call
      .childForFieldName('arguments')
      ?.namedChildren.find((x) => x !== null && x.type !== 'keyword_argument');
    const value = first ? evaluate(first) : undefined;
    const path = routePath(value);
    // A path naming a value of another file (`f"/api/{settings.API_VERSION}/health"`): resolved once the source is read.
    const deferred = path === undefined && value?.some((p) => 'ref' in p);
    if (path === undefined && !deferred) return;
    const kw = keywords(call);
    const prefix = prefixes.get(recv) ?? '';
    const loc = { file, line: lineOf(at) };
    const routerFile = prefixes.has(recv) && !includedHere.has(recv) ? file : undefined;
    const serve = (method: HttpMethod, framework: string, routerPrefix?: string): void => {
      if (path !== undefined) sink.endpoint(method, joinPath(prefix, path), framework, loc, routerFile, routerPrefix);
      else
        sink.routeRefs.push({
          method,
          parts: concat(lit(prefix), value!),
          framework,
          loc,
          ...(routerFile ? { routerFile } : {}),
          ...(routerPrefix !== undefined ? { routerPrefix } : {}),
        });
    };
    if (VERBS.has(verb))
      serve(
        httpMethod(verb)!,
        flaskApps.has(recv) ? 'flask' : 'fastapi',
        flaskApps.has(recv) ? prefixes.get(recv) : undefined,
      );
    else if (verb === 'route' || verb === 'api_route') {
      // FastAPI/Flask: every listed method, GET when `methods` is absent.
      const methods = kw.get('methods');
      const list = methods ? (nameOf(methods) ?? '').split(LIST_SEP).filter(Boolean) : ['GET'];
      for (const m of list)
        serve(
          httpMethod(m) ?? 'ANY',
          verb === 'route' ? 'flask' : 'fastapi',
          verb === 'route' ? prefixes.get(recv) : undefined,
        );
    }
  }

  /**
   * A function or method whose returned string is built from its parameters (`def order_url(base, id):
   * return f"{base}/orders/{id}"`), summarised for its callers in other modules and classes.
   */
  function summariseFunction(fn: Node): void {
    const name = fn.childForFieldName('name')?.text;
    const body = fn.childForFieldName('body');
    if (!name || !body) return;
    const classes: string[] = [];
    for (let p = fn.parent; p; p = p.parent)
      if (p.type === 'class_definition') classes.unshift(p.childForFieldName('name')?.text ?? '');
      else if (p.type === 'function_definition') return; // a nested function is its enclosing one's
    let params = (fn.childForFieldName('parameters')?.namedChildren ?? []).filter((x): x is Node => x !== null);
    if (params.some((x) => /splat/.test(x.type))) return;
    if (classes.length > 0 && params[0]?.type === 'identifier' && /^(self|cls)$/.test(params[0].text))
      params = params.slice(1);
    const names = params.map((x) =>
      x.type === 'identifier' ? x.text : (x.childForFieldName('name')?.text ?? x.namedChildren[0]?.text ?? ''),
    );
    const returned: Node[] = [];
    for (const r of returnStatements(
      body,
      (t) => t === 'function_definition' || t === 'lambda' || t === 'class_definition',
    )) {
      const v = r.namedChild(0);
      if (v) returned.push(v);
    }
    if (returned.length === 0 || scope.depth > 0) return;
    const value = scope.inline(new Map(names.map((n, i) => [n, [paramPart(i)]])), returned);
    if (!summarisable(value)) return;
    sink.returnSummaries.push({
      name: [...classes, name].join('.'),
      params: names.length,
      names,
      required: params.filter((x) => !/default_parameter/.test(x.type)).length,
      value,
    });
  }

  return {
    grpc: PYTHON_GRPC,
    // `returnStatements` of each summarised function reads them from the walk.
    captureAlso: RETURNS,
    evaluate,
    declarations,
    rules: [
      { on: ['function_definition'], each: summariseFunction },
      // app.include_router(router, prefix="/api"); app.register_blueprint(bp, url_prefix="/x")
      { on: ['call'], each: onMount },
      { on: ['call'], each: onCall },
      { on: ['decorated_definition'], each: onDecorated },
      ...namekoRules(file, sink, evaluate),
      ...kombuRules(file, sink, evaluate),
      // After the rules that find calls and publishes: the classes whose methods make them with fields.
      { on: ['class_definition'], each: summariseClass },
      sqlStringRule(sink, file, ['string'], (s) => {
        const { prefix, parts } = stringText(s);
        return prefix.includes('f') || prefix.includes('b') ? undefined : parts.map((p) => p.text).join('');
      }),
    ],
  };
};

/** Python: FastAPI, Flask, Django; requests, httpx; pika, kafka-python/confluent-kafka; SQLAlchemy/Django models, pymongo, redis. */
export const extractPython = extractorOf(pythonRules);

/** `app.routers` → app/routers; `.routers` from app/main.py → app/routers; `..x` goes one folder up more. */
function moduleOf(file: string, mod: Node): string {
  if (mod.type !== 'relative_import') return mod.text.replace(/\./g, '/');
  const text = mod.text;
  const dots = /^\.+/.exec(text)![0].length;
  const parts = file.split('/').slice(0, -1);
  for (let i = 1; i < dots; i++) parts.pop();
  const rest = text.slice(dots);
  return [...parts, ...(rest ? rest.split('.') : [])].join('/');
}

function joinDots(base: string, name: string): string {
  return [base, name.replace(/\./g, '/')].filter((x) => x.length > 0).join('/');
}
