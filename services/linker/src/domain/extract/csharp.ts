import type { Node } from '../parsers';
import type { BusSite, HttpMethod, Part } from '../model';
import { joinPath } from '../routes';
import {
  withBase,
  HOLE_PART,
  SECTION_REF,
  isClientModel,
  LIST_SEP,
  concat,
  conditionalValue,
  declaredQueueName,
  httpMethod,
  lineOf,
  lit,
  literal,
  nameOf,
  paramPart,
  paramWrapper,
  sharedCallRules,
  summarisable,
  sharedRuleName,
  captured,
} from './common';
import { type LanguageRules, extractorOf, sqlStringRule } from './driver';
import { AMBIGUOUS_CONSTANT, CONSTANT_END, CONSTANT_MARK } from './eventuate';
import { CSHARP_GRPC } from './grpc';
import { FUNCTIONS } from './scope';
import { MAX_SITES_PER_FILE, siteValue, summariseCsharpClass } from './objects';

const MINIMAL: Record<string, HttpMethod> = {
  MapGet: 'GET',
  MapPost: 'POST',
  MapPut: 'PUT',
  MapPatch: 'PATCH',
  MapDelete: 'DELETE',
};
const HTTP_CLIENT: Record<string, HttpMethod> = {
  GetAsync: 'GET',
  GetStringAsync: 'GET',
  GetFromJsonAsync: 'GET',
  GetStreamAsync: 'GET',
  GetByteArrayAsync: 'GET',
  PostAsync: 'POST',
  PostAsJsonAsync: 'POST',
  PutAsync: 'PUT',
  PutAsJsonAsync: 'PUT',
  PatchAsync: 'PATCH',
  PatchAsJsonAsync: 'PATCH',
  DeleteAsync: 'DELETE',
  DeleteFromJsonAsync: 'DELETE',
};
const CS_NAMES = new Set([
  'MapMethods',
  'SetKebabCaseEndpointNameFormatter',
  'SetSnakeCaseEndpointNameFormatter',
  'ReceiveEndpoint',
  'AddHttpClient',
  'ToTable',
  'AddProject',
  'PublishAsync',
  'SubscribeAsync',
  'Receive',
  'ReceiveAsync',
  'SendAsync',
  'Configure',
  'MapForwarder',
  'ConfigureHttpClient',
  'For',
  'AddRestEaseClient',
  'UsePathBase',
  'Send',
  'RouteToEndpoint',
  'SetDestination',
  'Message',
  'Publish',
  'ConfigureEndpoints',
  'SetEndpointNameFormatter',
]);
/** Refit: the verb attributes of an interface's methods (`[Get("/orders/{id}")]`). */
const REFIT_VERBS: Record<string, HttpMethod> = {
  Get: 'GET',
  Post: 'POST',
  Put: 'PUT',
  Patch: 'PATCH',
  Delete: 'DELETE',
  Head: 'HEAD',
};
/** Options interfaces whose `.Value` / `.CurrentValue` is the options class bound to a configuration section. */
const OPTIONS_TYPE = /^I?Options(?:Monitor|Snapshot)?<\s*([\w.]+)\s*>$/;

/** The method, local function or lambda around a node (where its locals are set). */
function enclosingBody(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent)
    if (/^(method_declaration|local_function_statement|lambda_expression|constructor_declaration)$/.test(p.type))
      return p;
  return undefined;
}

/** The method or local function around a node: its name, parameters and type parameters. */
function enclosingMethod(n: Node): { name: string; params: string[]; typeParams: string[] } | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type !== 'method_declaration' && p.type !== 'local_function_statement') continue;
    // An extension method's `this` parameter is the call's receiver, not one of its arguments.
    const params = named(p.childForFieldName('parameters'))
      .filter((x) => x.type === 'parameter' && !/^this\s/.test(x.text))
      .map((x) => (x.childForFieldName('name')?.text ?? '').replace(/^@/, ''));
    const typeParams = named(named(p).find((x) => x.type === 'type_parameter_list')).map((x) => x.text);
    return { name: p.childForFieldName('name')?.text ?? '', params, typeParams };
  }
  return undefined;
}

/** `foreach (var (k, _) in info.EventTypes)` around a node binding `variable`: the iterated member (`EventTypes`). */
function foreachRegistry(n: Node, variable: string): string | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type !== 'foreach_statement') continue;
    const kids = named(p);
    const body = kids.findIndex((x) => x.type === 'block' || x.type.endsWith('_statement'));
    const over = p.childForFieldName('right') ?? (body > 0 ? kids[body - 1] : undefined);
    const left = kids
      .slice(0, Math.max(0, body - 1))
      .map((x) => x.text)
      .join(' ');
    if (!over || !new RegExp(`\\b${variable.replace(/\W/g, '')}\\b`).test(left)) continue;
    return /(\w+)(?:\.(?:Keys|Values))?$/.exec(over.text)?.[1];
  }
  return undefined;
}
/** Calls that join URI parts with `/` (a table of the builders people use). */
const URI_JOIN = /^(Combine(Uri|Url)?|UrlCombine|JoinPath|AppendPathSegments?)$/;
/** Methods that store an integration event for publishing (`AddAndSaveEventAsync`, `SaveEventAndContextChangesAsync`). */
const OUTBOX = /^(Add|Save)\w*Event\w*Async$/;
/** A message type looked up by its stored name (`Type.GetType(name)`, a helper finding the type, `Activator`). */
const RUNTIME_TYPE =
  /\bType\.GetType\(|\.GetType\(\s*\w|\bGet\w*Type\w*\(\s*\w+\.\w*Type\w*\)|\bActivator\.CreateInstance\(/;
/** Calls that store or log an object in process, never a hand-off to a message outbox. */
const NOT_A_HAND_OFF =
  /^(Add|AddRange|Insert|Append|Push|Remove|Contains|Equals|Log\w*|Write\w*|Throw\w*|Set\w*|With\w*|Should\w*|Returns?\w*)$/;
const ATTR_VERBS: Record<string, HttpMethod> = {
  HttpGet: 'GET',
  HttpPost: 'POST',
  HttpPut: 'PUT',
  HttpPatch: 'PATCH',
  HttpDelete: 'DELETE',
};

/** The index of the first of `nodes` (in document order) starting at or after `offset`. */
function firstAt(nodes: readonly Node[], offset: number): number {
  let lo = 0;
  for (let hi = nodes.length; lo < hi;) {
    const mid = (lo + hi) >> 1;
    if (nodes[mid]!.startIndex < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const named = (n: Node | null | undefined): Node[] =>
  (n?.namedChildren ?? []).filter((x): x is Node => x !== null && x.type !== 'comment');

/** The expression of an `argument` node (skipping a `name:` label). */
function argExpr(arg: Node): { name?: string; expr: Node } {
  const label = arg.childForFieldName('name');
  const kids = named(arg);
  const expr = kids[kids.length - 1] ?? arg;
  return label && label.id !== expr.id ? { name: label.text, expr } : { expr };
}

const csharpRules: LanguageRules = ({ file, sink, scope }) => {
  const groups = new Map<string, string>(); // MapGroup var → prefix
  const namedClients = new Map<string, string>(); // var → CreateClient name
  const clientBases = new Map<string, Part[]>(); // HttpClient var → BaseAddress
  /** The file's own methods by name (helpers that build a URL from their parameters). */
  const methods = new Map<string, Node[]>();
  /** The file's invocations in document order (the walk's nodes, whose reads the rules share), for the outbox. */
  const invocations: Node[] = [];
  const assignmentNodes: Node[] = [];
  /**
   * Parameters and locals declared with a type (`OrderPlaced result;`, `(PlaceOrder order, …) =>`), by name: the
   * declaring node (a `parameter` or a local's `variable_declarator`), for the static type of a published value.
   */
  const typedLocals = new Map<string, Node[]>();
  /** Parameters of an options type (`IOptions<EventBusOptions> options`): name → options class. */
  const optionsParams = new Map<string, string>();
  let fileSites = 0;
  /** A compilation unit's file-scoped namespace (`namespace X;`), by the unit's node id (`namespaceOf`). */
  const unitNamespaces = new Map<number, string | undefined>();

  /**
   * `GetItemsUri(baseUri, page)`: a method of the file called with arguments is what it returns with its
   * parameters bound to them, when every `return` of it says the same (one method of that name and arity).
   */
  function inlineHelper(name: string, args: readonly Node[]): Part[] | undefined {
    return inlineMethod(
      (methods.get(name) ?? []).filter((m) => {
        const params = named(m.childForFieldName('parameters')).filter((x) => x.type === 'parameter');
        const required = params.filter((x) => !named(x).some((c) => c.type === 'equals_value_clause')).length;
        return args.length >= required && args.length <= params.length;
      }),
      (arg) => evaluate(arg),
      args,
    );
  }

  /** The value `m` returns with its parameters bound (`value(i)`); undefined when it has no `return`. */
  function inlineMethod<A>(
    decls: readonly Node[],
    value: (arg: A, i: number) => Part[],
    args: readonly A[],
  ): Part[] | undefined {
    if (decls.length !== 1 || scope.depth > 4) return undefined;
    const m = decls[0]!;
    const body = m.childForFieldName('body') ?? named(m).find((x) => x.type === 'arrow_expression_clause');
    if (!body) return undefined;
    const returned: Node[] = [];
    const visit = (n: Node): void => {
      if (n.id !== body.id && /lambda_expression|local_function_statement|anonymous_method_expression/.test(n.type))
        return;
      if (n.type === 'return_statement' && named(n)[0]) returned.push(named(n)[0]!);
      else for (const c of named(n)) visit(c);
    };
    if (body.type === 'arrow_expression_clause') {
      if (named(body)[0]) returned.push(named(body)[0]!);
    } else visit(body);
    if (returned.length === 0) return undefined;
    const params = named(m.childForFieldName('parameters')).filter((x) => x.type === 'parameter');
    const bound = new Map<string, Part[]>();
    params.forEach((p, i) => {
      const pname = p.childForFieldName('name')?.text;
      const arg = args[i];
      if (pname) bound.set(pname, arg !== undefined ? value(arg, i) : [HOLE_PART]);
    });
    return scope.inline(bound, returned);
  }

  /**
   * A method returning a string or Uri (`public static string GetBasket(string baseUri, string id) =>
   * $"{baseUri}/{id}"`) summarised for its callers in other classes and files, named by its classes.
   */
  function summariseMethod(m: Node): void {
    const name = m.childForFieldName('name')?.text;
    if (!name || !/^(string|String|Uri|System\.Uri)\??$/.test(m.childForFieldName('returns')?.text ?? '')) return;
    const params = named(m.childForFieldName('parameters')).filter((x) => x.type === 'parameter');
    const value = inlineMethod(
      [m],
      (i: number) => [paramPart(i)],
      params.map((_, i) => i),
    );
    if (!value || !summarisable(value)) return;
    const classes: string[] = [];
    for (let p = m.parent; p; p = p.parent)
      if (/^(class|record|struct|interface)_declaration$/.test(p.type)) {
        const c = p.childForFieldName('name')?.text;
        if (c) classes.unshift(c);
      }
    sink.returnSummaries.push({
      name: [...classes, name].join('.'),
      params: params.length,
      required: params.filter((x) => !named(x).some((c) => c.type === 'equals_value_clause')).length,
      value,
    });
  }

  /** `$"…".TrimEnd('&', '?')`: the characters trimmed from the literal ends of the value. */
  function trimmed(parts: Part[], how: string, chars: readonly Node[]): Part[] {
    const set = chars.length
      ? chars.map((c) => (c.type === 'character_literal' ? c.text.slice(1, -1) : '')).filter((c) => c.length === 1)
      : [' ', '\t', '\n', '\r'];
    if (chars.length && set.length !== chars.length) return parts;
    const strip = (t: string, end: boolean): string => {
      let out = t;
      while (out.length > 0 && set.includes(end ? out[out.length - 1]! : out[0]!))
        out = end ? out.slice(0, -1) : out.slice(1);
      return out;
    };
    const out = [...parts];
    const last = out[out.length - 1];
    if (how !== 'TrimStart' && last && 'lit' in last) out[out.length - 1] = { lit: strip(last.lit, true) };
    const first = out[0];
    if (how !== 'TrimEnd' && first && 'lit' in first) out[0] = { lit: strip(first.lit, false) };
    return out.filter((p) => !('lit' in p) || p.lit.length > 0);
  }

  /**
   * The type a name of the file is declared with (`private readonly CustomersHttpClient _client;`, a parameter
   * `CustomersHttpClient client`), when the file declares it with one class type only; HttpClient itself is none.
   */
  const declaredTypes = new Map<string, string | undefined>();
  let rootText: string | undefined;
  const receiverType = (at: Node, receiver: string): string | undefined => {
    const name = receiver.replace(/^this\./, '').replace(/^@/, '');
    if (!/^\w+$/.test(name)) return undefined;
    if (declaredTypes.has(name)) return declaredTypes.get(name);
    rootText ??= at.tree.rootNode.text;
    const types = new Set<string>();
    for (const m of rootText.matchAll(new RegExp(String.raw`\b([A-Z][\w.]*)\??\s+@?${name}\b(?!\s*[(<])`, 'g')))
      types.add(m[1]!.replace(/^.*\./, ''));
    const one = types.size === 1 ? [...types][0]! : undefined;
    const type = one && !/^(HttpClient|IHttpClientFactory|HttpMessageInvoker|Uri|String)$/.test(one) ? one : undefined;
    declaredTypes.set(name, type);
    return type;
  };
  /**
   * The types the file declares each name with, read in one pass (`IOrdersApi _orders`, a parameter
   * `IOrdersApi orders`, `var api = RestService.For<IOrdersApi>(…)`); a name declared with two types has none.
   */
  let namedTypes: Map<string, string | undefined> | undefined;
  const typeOfName = (at: Node, name: string): string | undefined => {
    if (!namedTypes) {
      namedTypes = new Map();
      const text = at.tree.rootNode.text;
      const add = (n: string, t: string): void => {
        const prev = namedTypes!.get(n);
        namedTypes!.set(n, namedTypes!.has(n) && prev !== t ? undefined : t);
      };
      for (const m of text.matchAll(/\b([A-Z]\w*(?:\.[A-Z]\w*)*)\??[ \t]+@?(\w+)\b(?![ \t]*[(<.])/g))
        add(m[2]!, m[1]!.replace(/^.*\./, ''));
      for (const m of text.matchAll(
        /\bvar[ \t]+(\w+)[ \t]*=[ \t]*(?:await[ \t]+)?(?:Refit\.)?(?:RestService|RestClient)\.For<([\w.]+)>/g,
      ))
        add(m[1]!, m[2]!.replace(/^.*\./, ''));
    }
    return namedTypes.get(name);
  };
  function typedInvocation(inv: Node, fn: Node): void {
    const recv = fn.childForFieldName('expression');
    const method = fn.childForFieldName('name')?.text;
    if (!recv || !method || !/^\w+$/.test(method)) return;
    const name =
      recv.type === 'identifier'
        ? recv.text
        : recv.type === 'member_access_expression' && recv.childForFieldName('expression')?.text === 'this'
          ? recv.childForFieldName('name')?.text
          : undefined;
    const type = name ? typeOfName(inv, name.replace(/^@/, '')) : undefined;
    if (!type || !/^[A-Z]\w*$/.test(type) || CS_FRAMEWORK_TYPES.test(type)) return;
    (sink.facts.typedInvocations ??= []).push({ type, method, loc: { file, line: lineOf(inv) } });
  }
  /** Locals and fields set to `new UriBuilder(…)`: `b.Uri` is the builder's address with its `Path` changes. */
  const uriBuilders = new Set<string>();
  /** `new UriBuilder(base)` (or `(scheme, host[, port[, path]])`): the address it starts from. */
  function uriBuilderBase(n: Node): Part[] {
    const a = named(n.childForFieldName('arguments')).map((x) => argExpr(x).expr);
    if (a.length === 1) return evaluate(a[0]!);
    if (a.length < 2 || a.length > 4) return [HOLE_PART];
    const [scheme, host, port, path] = a.map((x) => evaluate(x));
    return concat(
      scheme!,
      lit('://'),
      host!,
      port ? concat(lit(':'), port) : [],
      path ? (literal(path)?.startsWith('/') ? path : concat(lit('/'), path)) : [],
    );
  }
  /**
   * A UriBuilder held by `name`, read at `at`: its starting address with each `name.Path += …` of the method
   * before `at` appended (the query is not part of the path); another change (`Path =`, `Host =`): unknown.
   */
  function uriBuilderValue(name: string, at: Node): Part[] | undefined {
    if (!uriBuilders.has(name)) return undefined;
    const decl = scope.node(name, at);
    if (
      decl?.type !== 'object_creation_expression' ||
      !/(^|\.)UriBuilder$/.test(decl.childForFieldName('type')?.text ?? '')
    )
      return undefined;
    let value = uriBuilderBase(decl);
    const body = enclosingBody(at);
    if (!body) return value;
    const changes = assignmentsIn(body);
    for (const prop of ['Host', 'Port', 'Scheme'])
      if ((changes.get(`${name}.${prop}`) ?? []).some((a) => a.startIndex < at.startIndex)) return [HOLE_PART];
    for (const a of changes.get(`${name}.Path`) ?? []) {
      if (a.startIndex >= at.startIndex) break;
      const right = a.childForFieldName('right');
      if (a.childForFieldName('operator')?.text !== '+=' || !right) return [HOLE_PART];
      value = concat(value, evaluate(right));
    }
    return value;
  }

  /**
   * The address of a MassTransit send endpoint expression: a local or inline `await x.GetSendEndpoint(new
   * Uri("queue:orders"))` (the address may be a setting); undefined for anything else.
   */
  function sendEndpointAddress(e: Node | null | undefined, depth = 0): string | undefined {
    if (!e || depth > 4) return undefined;
    if (e.type === 'identifier') return sendEndpointAddress(scope.node(e.text, e), depth + 1);
    if (/^(await_expression|parenthesized_expression|equals_value_clause)$/.test(e.type))
      return sendEndpointAddress(named(e)[0], depth + 1);
    if (e.type !== 'invocation_expression' || calleeName(e) !== 'GetSendEndpoint') return undefined;
    const a = named(e.childForFieldName('arguments'))[0];
    const arg = a ? argExpr(a).expr : undefined;
    if (!arg) return undefined;
    const uri =
      /^(implicit_)?object_creation_expression$/.test(arg.type) &&
      (arg.type === 'implicit_object_creation_expression' ||
        /^(System\.)?Uri$/.test(arg.childForFieldName('type')?.text ?? ''))
        ? named(arg.childForFieldName('arguments') ?? named(arg).find((x) => x.type === 'argument_list') ?? null)[0]
        : arg;
    return uri ? settingName(evaluate(argExpr(uri).expr)) : undefined;
  }

  let discoveryFile: boolean | undefined;
  /**
   * The service name of an expression holding instances a discovery client found (Steeltoe's
   * `IDiscoveryClient.GetInstancesAsync("orders")` / `GetInstances("orders")`), followed through locals, `await`,
   * picks of one instance (`First()`, `[0]`) and a resilience pipeline running the lookup (Polly's
   * `pipeline.ExecuteAsync(ct => discovery.GetInstancesAsync("orders", ct))`).
   */
  function discoveredService(e: Node | null | undefined, depth = 0): Part[] | undefined {
    if (!e || depth > 8) return undefined;
    if (!(discoveryFile ??= /\b(Steeltoe|IDiscoveryClient)\b/.test(e.tree.rootNode.text))) return undefined;
    switch (e.type) {
      case 'await_expression':
      case 'parenthesized_expression':
      case 'postfix_unary_expression':
      case 'equals_value_clause':
        return discoveredService(named(e)[0], depth + 1);
      case 'identifier':
        return discoveredService(scope.node(e.text, e), depth + 1);
      case 'element_access_expression':
        return discoveredService(e.childForFieldName('expression'), depth + 1);
      case 'lambda_expression': {
        const body = e.childForFieldName('body');
        if (body?.type !== 'block') return discoveredService(body, depth + 1);
        const returns = named(body).filter((x) => x.type === 'return_statement');
        return returns.length === 1 ? discoveredService(named(returns[0])[0], depth + 1) : undefined;
      }
      case 'invocation_expression': {
        const fn = e.childForFieldName('function');
        if (fn?.type !== 'member_access_expression') return undefined;
        const m = fn.childForFieldName('name')?.text ?? '';
        const args = named(e.childForFieldName('arguments')).map((x) => argExpr(x).expr);
        if (/^GetInstances(Async)?$/.test(m) && args[0]) {
          const v = evaluate(args[0]);
          return v.length > 0 && v.every((p) => 'lit' in p || 'config' in p || 'env' in p) ? v : undefined;
        }
        if (/^(First|Last|Single|ElementAt)(OrDefault)?$|^To(List|Array)$/.test(m))
          return discoveredService(fn.childForFieldName('expression'), depth + 1);
        if (/^Execute(Async)?$/.test(m) && args.length >= 1 && args[0]!.type === 'lambda_expression')
          return discoveredService(args[0], depth + 1);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  function evaluate(node: Node): Part[] {
    switch (node.type) {
      case 'string_literal':
        return lit(
          named(node)
            .map((c) => c.text)
            .join(''),
        );
      case 'verbatim_string_literal':
        return lit(node.text.slice(2, -1));
      case 'conditional_expression': {
        // `cond ? A : B`: a value both share, else both as alternatives (one call per value).
        const a = node.childForFieldName('consequence');
        const b = node.childForFieldName('alternative');
        if (!a || !b) return [HOLE_PART];
        const [va, vb] = [evaluate(a), evaluate(b)];
        const v = conditionalValue(va, vb);
        // An optional fragment (`k is null ? "" : $"kind={k}&"`) stays unknown: its values differ in the query only.
        const empty = literal(va) === '' || literal(vb) === '';
        return v.length === 1 && 'hole' in v[0]! && !empty ? [{ hole: true, alts: [va, vb] }] : v;
      }
      case 'raw_string_literal':
        return lit(node.text.replace(/^"+/, '').replace(/"+$/, ''));
      case 'interpolated_string_expression': {
        const parts: Part[][] = [];
        for (const c of named(node)) {
          if (c.type === 'interpolation') {
            const e = named(c).find(
              (x) =>
                x.type !== 'interpolation_brace' &&
                x.type !== 'interpolation_format_clause' &&
                x.type !== 'interpolation_alignment_clause',
            );
            parts.push(e ? evaluate(e) : [HOLE_PART]);
          } else if (c.type === 'string_content' || c.type === 'escape_sequence') parts.push(lit(c.text));
        }
        return concat(...parts);
      }
      case 'binary_expression': {
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        const op = node.childForFieldName('operator')?.text;
        if (!l || !r) return [HOLE_PART];
        if (op === '+') return concat(evaluate(l), evaluate(r));
        if (op === '??') {
          const left = evaluate(l);
          const fb = literal(evaluate(r));
          const only = left.length === 1 ? left[0]! : undefined;
          if (only && fb !== undefined && 'config' in only) return [{ config: only.config, fallback: fb }];
          if (only && fb !== undefined && 'env' in only) return [{ env: only.env, fallback: fb }];
          return left;
        }
        return [HOLE_PART];
      }
      case 'identifier': {
        const bound = scope.param(node.text);
        if (bound) return bound;
        return uriBuilderValue(node.text, node) ?? scope.lookup(node.text, node) ?? [{ ref: node.text }];
      }
      case 'member_access_expression': {
        // `string.Empty` (RabbitMQ.Client's default exchange is written `exchange: string.Empty`).
        if (/^(?:System\.)?[Ss]tring\.Empty$/.test(node.text)) return lit('');
        // `options.Value.SubscriptionClientName` of an `IOptions<T>`: the property of T's section, once the
        // source says which section T is bound to (`Configure<T>(config.GetSection(…))`).
        const opt = /^(\w+)\.(?:Value|CurrentValue)\.(\w+)$/.exec(node.text);
        const cls = opt ? optionsParams.get(opt[1]!) : undefined;
        if (cls) return [{ ref: `IOptions<${cls}>.${opt![2]!}` }];
        // RabbitMQ.Client `channel.QueueDeclare().QueueName`, `var q = await ch.QueueDeclareAsync(); q.QueueName`.
        if (node.childForFieldName('name')?.text === 'QueueName') {
          const declared = queueDeclaration(node.childForFieldName('expression'));
          if (declared) return declared;
        }
        const held = /^(?:this\.)?(\w+)\.(\w+)$/.exec(node.text);
        const heldCls = held ? optionsValues.get(held[1]!) : undefined;
        if (heldCls) return [{ ref: `IOptions<${heldCls}>.${held![2]!}` }];
        // `builder.Uri` of a `new UriBuilder(…)`; a Uri's string forms (`uri.AbsoluteUri`) are the Uri.
        const member = node.childForFieldName('name')?.text;
        const object = node.childForFieldName('expression');
        if (held && member === 'Uri') {
          const built = uriBuilderValue(held[1]!, node);
          if (built) return built;
        }
        if (object && (member === 'AbsoluteUri' || member === 'OriginalString')) return evaluate(object);
        // An instance found by service discovery (`(await discovery.GetInstancesAsync("orders")).First().Uri`): the
        // address of the service registered under that name.
        const discovered = member === 'Uri' && object ? discoveredService(object) : undefined;
        if (discovered) return concat(lit('http://'), discovered, lit('/'));
        // `_client.BaseAddress` of an HttpClient this file configures, or of a typed client class (`CustomersHttpClient
        // _client`) whose constructor sets it: `Class.BaseAddress`, resolved once the source is read.
        if (held && member === 'BaseAddress') {
          const own = clientBases.get(held[1]!);
          if (own) return own;
          const type = receiverType(node, held[1]!);
          if (type) return [{ ref: `${type}.BaseAddress` }];
        }
        return (
          scope.lookup(node.text) ?? scope.lookup(node.childForFieldName('name')?.text ?? '') ?? [{ ref: node.text }]
        );
      }
      case 'parenthesized_expression':
      case 'postfix_unary_expression':
      case 'await_expression':
        return named(node)[0] ? evaluate(named(node)[0]!) : [HOLE_PART];
      case 'element_access_expression': {
        // configuration["Services:Orders"]
        const obj = node.childForFieldName('expression')?.text ?? '';
        const arg = named(node.childForFieldName('subscript') ?? named(node)[1])[0];
        const key = arg ? literal(evaluate(argExpr(arg).expr)) : undefined;
        if (key !== undefined && /config/i.test(obj)) return [{ config: key }];
        return [HOLE_PART];
      }
      case 'invocation_expression': {
        const fn = node.childForFieldName('function');
        const fnText = fn?.text ?? '';
        // The arguments read only by the branches that use them: most calls (`items.Where(…).ToList()`) are none.
        let argNodes: Node[] | undefined;
        const a = (): Node[] => (argNodes ??= named(node.childForFieldName('arguments')).map((x) => argExpr(x).expr));
        // `QueryHelpers.AddQueryString(uri, …)`: the URI with a query string (not part of the path).
        if (/(^|\.)AddQueryString$/.test(fnText) && a()[0]) return concat(evaluate(a()[0]!), lit('?'), [HOLE_PART]);
        if (/Environment\.GetEnvironmentVariable$/.test(fnText) && a()[0])
          return [{ env: literal(evaluate(a()[0]!)) ?? '' }];
        if (/\.(GetValue<[^>]*>|GetConnectionString)$/.test(fnText) && a()[0]) {
          const k = literal(evaluate(a()[0]!));
          if (k !== undefined)
            return [fnText.endsWith('GetConnectionString') ? { config: `ConnectionStrings:${k}` } : { config: k }];
        }
        // URI builders (`UriHelper.CombineUri(base, "api/items")`, `Path.Combine`, Flurl `AppendPathSegment`):
        // the parts joined by `/`, an unknown base kept as a run-time part before a known path.
        if (fn?.type === 'member_access_expression' && URI_JOIN.test(fn.childForFieldName('name')?.text ?? '')) {
          const target = fn.childForFieldName('expression');
          const head =
            /^(AppendPathSegments?|AppendPathSegment)$/.test(fn.childForFieldName('name')!.text) && target
              ? [target]
              : [];
          const partsOf = [...head, ...a()].map((x) => evaluate(x));
          if (partsOf.length >= 2) return concat(...partsOf.flatMap((p, i) => (i === 0 ? [p] : [lit('/'), p])));
        }
        // String methods that keep the URL: `$"{base}items?{qs}".TrimEnd('&', '?')`, `.ToLowerInvariant()`.
        if (fn?.type === 'member_access_expression') {
          const m = fn.childForFieldName('name')?.text ?? '';
          const obj = fn.childForFieldName('expression');
          if (obj && /^(Trim|TrimEnd|TrimStart)$/.test(m)) return trimmed(evaluate(obj), m, a());
          if (obj && /^(ToString|ToLower|ToLowerInvariant)$/.test(m) && a().length === 0) {
            const v = evaluate(obj);
            return m === 'ToString' ? v : v.map((p) => ('lit' in p ? { lit: p.lit.toLowerCase() } : p));
          }
          if (obj?.type === 'this_expression' || obj?.text === 'this') {
            const own = inlineHelper(m, a());
            if (own) return own;
          }
        }
        if (fn?.type === 'identifier') {
          const own = inlineHelper(fn.text, a());
          if (own) return own;
        }
        if (/^string\.Format$/i.test(fnText) && a()[0]) {
          const tpl = literal(evaluate(a()[0]!));
          if (tpl === undefined) return [HOLE_PART];
          const pieces = tpl.split(/\{\d+[^}]*\}/);
          return concat(
            ...pieces.flatMap((p, i) =>
              i < pieces.length - 1 ? [lit(p), a()[i + 1] ? evaluate(a()[i + 1]!) : [HOLE_PART]] : [lit(p)],
            ),
          );
        }
        // A method of another class or file (`API.Basket.GetBasket(baseUri, id)`): its return summary.
        if (/^[A-Za-z_][\w.]*$/.test(fnText) && !/^(this|base)\./.test(fnText))
          return sink.callValue(
            fnText,
            a().map((x) => evaluate(x)),
          );
        return [HOLE_PART];
      }
      case 'object_creation_expression': {
        const type = node.childForFieldName('type')?.text;
        const a = named(node.childForFieldName('arguments')).map((x) => argExpr(x).expr);
        if (type === 'Uri' && a[0]) return a[1] ? concat(evaluate(a[0]), lit('/'), evaluate(a[1])) : evaluate(a[0]);
        if (type && /(^|\.)UriBuilder$/.test(type)) return uriBuilderBase(node);
        return [HOLE_PART];
      }
      case 'implicit_object_creation_expression': {
        // Target-typed `BaseAddress = new("http://orders")`: a Uri from a string.
        const a = named(
          node.childForFieldName('arguments') ?? named(node).find((x) => x.type === 'argument_list') ?? null,
        ).map((x) => argExpr(x).expr);
        return a[0] && a.length <= 2
          ? a[1]
            ? concat(evaluate(a[0]), lit('/'), evaluate(a[1]))
            : evaluate(a[0])
          : [HOLE_PART];
      }
      case 'implicit_array_creation_expression':
      case 'array_creation_expression':
      case 'initializer_expression':
      case 'collection_expression': {
        const init =
          node.type === 'initializer_expression' || node.type === 'collection_expression'
            ? node
            : named(node).find((x) => x.type === 'initializer_expression');
        return lit(
          named(init)
            .map((x) => nameOf(evaluate(x)) ?? '')
            .join(LIST_SEP),
        );
      }
      default:
        return [HOLE_PART];
    }
  }

  /**
   * A bind whose routing key is a parameter of its method (`DoInternalSubscription(string eventName)` →
   * `QueueBind(queue, exchange, routingKey: eventName)`): a registry keyed by that parameter, which the
   * generic methods passing their type argument's name to it register into (`typeNameArguments`).
   */
  function parameterRegistry(inv: Node, key: Node | undefined): string | undefined {
    const k = key ? argExpr(key).expr : undefined;
    const m = k?.type === 'identifier' ? enclosingMethod(inv) : undefined;
    const index = m ? m.params.indexOf(k!.text) : -1;
    return m && index >= 0 ? `${m.name}(#${index})` : undefined;
  }

  /**
   * In a generic method M<T, …>, a call `N(x)` of the file's own method whose argument is T's name
   * (`typeof(T).Name`, a generic call on T alone such as `GetEventKey<T>()`, or a local set to one): M
   * registers its type argument into N's parameter registry (see `parameterRegistry`).
   */
  function typeNameArguments(inv: Node, callee: string): void {
    // The cheap check first: the enclosing method's parameters cost a walk up the tree per call.
    if (!methods.has(callee)) return;
    const m = enclosingMethod(inv);
    if (!m || m.typeParams.length === 0) return;
    named(inv.childForFieldName('arguments')).forEach((a, i) => {
      let e: Node | undefined = argExpr(a).expr;
      if (e.type === 'identifier') e = scope.node(e.text, e);
      const t = e ? /^(?:typeof\((\w+)\)\.Name|(?:[\w.]+\.)?\w+<(\w+)>\(\))$/.exec(e.text) : null;
      const type = t?.[1] ?? t?.[2];
      if (type && m.typeParams.includes(type))
        sink.registrations.push({
          method: m.name,
          registry: `${callee}(#${i})`,
          typeIndex: m.typeParams.indexOf(type),
        });
    });
  }

  /**
   * `_settings = options.Value` (or `var s = options.CurrentValue`) of an `IOptions<T>` parameter or field: the
   * name holds T, so `_settings.ProductsApiUrl` reads like `options.Value.ProductsApiUrl`.
   */
  const optionsValues = new Map<string, string>();
  const holdOptionsValue = (name: string, value: Node): void => {
    // No IOptions<T> parameter seen yet (they are declared before their uses): no value's text to read.
    if (optionsParams.size === 0) return;
    const from = /^(?:this\.)?(\w+)\.(?:Value|CurrentValue)$/.exec(value.text)?.[1];
    const cls = from ? optionsParams.get(from) : undefined;
    if (cls) optionsValues.set(name, cls);
  };
  /**
   * The queue a RabbitMQ.Client declaration names (`QueueDeclare(queue: "")`, `QueueDeclareAsync()`: the broker's),
   * for the declaration itself or a local holding its reply (`QueueDeclareOk q = …`); undefined for anything else.
   */
  function queueDeclaration(expr: Node | null): Part[] | undefined {
    let v = expr;
    if (v?.type === 'identifier') v = scope.node(v.text, v) ?? null;
    while (v && (v.type === 'await_expression' || v.type === 'parenthesized_expression')) v = named(v)[0] ?? null;
    const fn = v?.type === 'invocation_expression' ? v.childForFieldName('function') : null;
    if (
      fn?.type !== 'member_access_expression' ||
      !/^QueueDeclare(Async)?$/.test(fn.childForFieldName('name')?.text ?? '')
    )
      return undefined;
    const args = named(v!.childForFieldName('arguments')).map(argExpr);
    const name = args.find((a) => a.name === 'queue') ?? (args[0] && !args[0].name ? args[0] : undefined);
    const given = name && name.expr.type !== 'null_literal' ? evaluate(name.expr) : undefined;
    return declaredQueueName(given, file, lineOf(v!));
  }

  const declareVariable = (node: Node): void => {
    const children = named(node);
    const name = node.childForFieldName('name') ?? children[0];
    const value = children.slice(1).pop();
    if (name && value) holdOptionsValue(name.text, value);
    if (
      name &&
      value?.type === 'object_creation_expression' &&
      /UriBuilder$/.test(value.childForFieldName('type')?.text ?? '')
    )
      uriBuilders.add(name.text);
    if (name && value) {
      scope.add(name.text, value, true);
      classify(name.text, value);
    }
  };
  const declareAssignment = (node: Node): void => {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    // `o.EventTypes[typeof(T).Name] = …` in a generic method M<T, …>: M registers its type argument's name.
    if (left?.type === 'element_access_expression') {
      const t = /^\[\s*typeof\((\w+)\)\.Name\s*\]$/.exec(named(left)[1]?.text ?? '')?.[1];
      const m = t ? enclosingMethod(node) : undefined;
      const registry = /(\w+)$/.exec(named(left)[0]?.text ?? '')?.[1];
      if (m && registry && m.typeParams.includes(t!))
        sink.registrations.push({ method: m.name, registry, typeIndex: m.typeParams.indexOf(t!) });
    }
    // http.BaseAddress = new Uri("http://orders")
    // A class's own `BaseAddress = …` (an HttpClient subclass's constructor, `onConstructor`): no constant of the file.
    if (left && /^(?:(?:this|base)\.)?BaseAddress$/.test(left.text)) return;
    if (left && right && /\.BaseAddress$/.test(left.text)) {
      clientBases.set(left.text.replace(/\.BaseAddress$/, '').replace(/^this\./, ''), evaluate(right));
      return;
    }
    if (left && right && (left.type === 'identifier' || left.type === 'member_access_expression')) {
      const n = left.text.replace(/^this\./, '');
      holdOptionsValue(n, right);
      scope.add(n, right);
      classify(n, right);
    }
  };

  function classify(name: string, value: Node): void {
    // new HttpClient { BaseAddress = new("http://orders") }
    if (
      value.type === 'object_creation_expression' &&
      /HttpClient$/.test(value.childForFieldName('type')?.text ?? '')
    ) {
      const init = named(value).find((x) => x.type === 'initializer_expression');
      const base = init ? findBaseAddress(init) : undefined;
      if (base) clientBases.set(name, base);
      return;
    }
    if (value.type !== 'invocation_expression') return;
    const fn = value.childForFieldName('function');
    const m = fn?.type === 'member_access_expression' ? fn.childForFieldName('name')?.text : undefined;
    // groupPrefix is pure: computed once (it walks the whole call chain), and only when the chain can give one
    // (a group variable of the file, or a MapGroup call in it).
    const prefix = m && (groups.size > 0 || value.text.includes('MapGroup')) ? groupPrefix(value) : undefined;
    if (prefix !== undefined) groups.set(name, prefix);
    if (m === 'CreateClient') {
      const a = named(value.childForFieldName('arguments')).map((x) => argExpr(x).expr);
      const n = a[0] ? literal(evaluate(a[0])) : undefined;
      if (n) namedClients.set(name, n);
    }
  }

  /**
   * The route prefix of a group expression: `app.MapGroup("/api").MapGroup("/v1")`, a variable holding a
   * group, and calls chained on a group (`.WithApiVersionSet(v)`, `.RequireAuthorization()`) that keep it.
   */
  function groupPrefix(n: Node | null | undefined, depth = 0): string | undefined {
    if (!n || depth > 12) return undefined;
    if (n.type === 'identifier' || n.type === 'member_access_expression') return groups.get(n.text);
    if (n.type !== 'invocation_expression') return undefined;
    const fn = n.childForFieldName('function');
    if (fn?.type !== 'member_access_expression') return undefined;
    const m = fn.childForFieldName('name')?.text;
    const parent = groupPrefix(fn.childForFieldName('expression'), depth + 1);
    if (m === 'MapGroup') {
      const a = named(n.childForFieldName('arguments')).map((x) => argExpr(x).expr);
      const p = a[0] ? literal(evaluate(a[0])) : undefined;
      return p === undefined ? undefined : joinPath(parent ?? '', p);
    }
    return MINIMAL[m ?? ''] ? undefined : parent;
  }

  const enclosingClass = (n: Node): string | undefined => {
    for (let p: Node | null = n.parent; p; p = p.parent)
      if (p.type === 'class_declaration') return p.childForFieldName('name')?.text;
    return undefined;
  };

  /** NServiceBus names what the broker sees by its own conventions (bus.ts): only in files that use it. */
  let nsbFile: boolean | undefined;
  let easyFile: boolean | undefined;
  const usesEasyNetQ = (n: Node): boolean => (easyFile ??= /\bEasyNetQ\b/.test(n.tree.rootNode.text));
  let mediatrFile: boolean | undefined;
  const usesMediatR = (n: Node): boolean => (mediatrFile ??= /\bMediatR\b/.test(n.tree.rootNode.text));
  /** Per pattern of types: the names the file declares with one (field, parameter, local) or sets from one. */
  const typedNames = new Map<string, Set<string>>();
  const declaredWith = (n: Node, types: string, receiver: string): boolean => {
    let names = typedNames.get(types);
    if (!names) {
      const decl = new RegExp(String.raw`\b(?:${types})\??\s+@?(\w+)\b|\b(\w+)\s*=\s*(?:${types})\b`, 'g');
      names = new Set([...n.tree.rootNode.text.matchAll(decl)].map((m) => (m[1] ?? m[2])!));
      typedNames.set(types, names);
    }
    return names.has(receiver.replace(/^this\./, '').replace(/^@/, ''));
  };
  /**
   * Whether a call's receiver is EasyNetQ's bus: `.PubSub` / `.SendReceive` are its own (the file may take
   * `EasyNetQ` from a `global using`); else, in a file that uses it, a name declared with its bus types
   * (`IBus _bus`, `IPubSub pubSub`) or set from `RabbitHutch.CreateBus`. Not any `x.Publish(…)` of the file.
   */
  const easyBus = (n: Node, receiver: string): boolean =>
    /\.(PubSub|PubSubAsync|SendReceive)$/.test(receiver) ||
    (usesEasyNetQ(n) && declaredWith(n, 'IBus|IPubSub|IAdvancedBus|ISendReceive|RabbitHutch\\.CreateBus', receiver));
  /** MediatR's `_mediator.Publish(notification)`: handled in process, no message on a broker. */
  const mediator = (n: Node, receiver: string): boolean =>
    usesMediatR(n) && declaredWith(n, 'IMediator|IPublisher', receiver);
  const usesNsb = (n: Node): boolean => (nsbFile ??= /\bNServiceBus\b/.test(n.tree.rootNode.text));

  /**
   * The configuration switches around a call: each enclosing `if (bool.Parse(configuration["Key"]))` /
   * `if (configuration.GetValue<bool>("Key"))` (negated or not), with the value its branch runs under.
   */
  const GUARD =
    /^\(?\s*(!)?\s*(?:(?:bool|Boolean)\.Parse\(\s*[\w.]*[Cc]onfiguration\s*\[\s*"([^"]+)"\s*\]\s*\)|[\w.]*[Cc]onfiguration\.GetValue<bool>\(\s*"([^"]+)"\s*\))\s*\)?$/;
  function configGuards(n: Node): BusSite['guards'] {
    let out: { key: string; when: boolean }[] | undefined;
    for (let c: Node = n, p = n.parent; p; c = p, p = p.parent) {
      if (p.type === 'class_declaration') break;
      if (p.type !== 'if_statement') continue;
      const cond = p.childForFieldName('condition');
      const m = cond ? GUARD.exec(cond.text.trim()) : null;
      if (!m || cond!.id === c.id) continue;
      const key = (m[2] ?? m[3])!;
      const inThen = p.childForFieldName('consequence')?.id === c.id;
      const inElse = p.childForFieldName('alternative')?.id === c.id;
      if (!inThen && !inElse) continue;
      (out ??= []).push({ key, when: inThen !== (m[1] === '!') });
    }
    return out;
  }
  /** The call whose bus sites are being recorded: they carry its configuration switches. */
  let siteCall: Node | undefined;
  const busSite = (site: BusSite): void => {
    const guards = siteCall ? configGuards(siteCall) : undefined;
    sink.busSite(guards ? { ...site, guards } : site);
  };
  let mtFile: boolean | undefined;
  const usesMassTransit = (n: Node): boolean => (mtFile ??= /\bMassTransit\b/.test(n.tree.rootNode.text));
  const typeArgOf = (nameNode: Node | null | undefined): string | undefined =>
    nameNode?.type === 'generic_name'
      ? named(named(nameNode)[1] ?? null)[0]
          ?.text.replace(/<.*$/, '')
          .replace(/^.*\./, '')
      : undefined;
  /**
   * A `Publish<T>(x => …)` / `Send<T>(…)` / `Message<T>(…)` of MassTransit's bus configurator, not a message sent
   * with an initialiser (NServiceBus' `context.Publish<T>(m => m.Id = 1)`): inside the bus factory's
   * `UsingRabbitMq((context, cfg) => …)` / `Bus.Factory.CreateUsingRabbitMq(…)`, or setting topology in its lambda.
   */
  const TOPOLOGY_MEMBERS =
    /\b(SetEntityName|ExchangeType|UseRoutingKeyFormatter|UseCorrelationId|Durable|AutoDelete|Exclude|BindQueue|SetExchangeArgument)\b/;
  const busTopology = (inv: Node): boolean => {
    if (usesNsb(inv)) return false;
    const lambda = named(inv.childForFieldName('arguments'))[0];
    if (lambda && TOPOLOGY_MEMBERS.test(lambda.text)) return true;
    for (let p = inv.parent; p; p = p.parent) {
      if (p.type === 'class_declaration') break;
      if (p.type === 'invocation_expression' && /^(Using|CreateUsing)\w+$/.test(calleeName(p) ?? '')) return true;
    }
    return false;
  };
  /** Calls inside a node (the walk's captures when it has them). */
  const callsIn = (n: Node): Node[] =>
    captured(n, 'invocation_expression') ?? n.descendantsOfType('invocation_expression');
  const calleeName = (call: Node): string | undefined => {
    const f = call.childForFieldName('function');
    const nn = f?.type === 'member_access_expression' ? f.childForFieldName('name') : f;
    return nn?.type === 'generic_name' ? named(nn)[0]?.text : nn?.text;
  };
  /** A name for a broker entity: a literal, or configuration placeholders the link stage resolves. */
  const settingName = (v: readonly Part[] | undefined): string | undefined =>
    v && v.length > 0 && v.every((p) => 'lit' in p || 'config' in p || 'env' in p) ? nameOf(v) : undefined;
  /** `x.Prop = value` assignments inside a configuration lambda: property → value expression. */
  const assignedIn = (n: Node): Map<string, Node> => {
    const out = new Map<string, Node>();
    for (const a of captured(n, 'assignment_expression') ?? n.descendantsOfType('assignment_expression')) {
      const left = a.childForFieldName('left')?.text.replace(/^.*\./, '');
      const right = a.childForFieldName('right');
      if (left && right) out.set(left, right);
    }
    return out;
  };
  const exchangeKind = (e: Node | undefined): string | undefined => {
    if (!e) return undefined;
    const t = /^(?:[\w.]*ExchangeType\.)?(\w+)$/.exec(e.text)?.[1] ?? literal(evaluate(e));
    return t && /^(fanout|direct|topic|headers)$/i.test(t) ? t.toLowerCase() : undefined;
  };
  /**
   * MassTransit's endpoint name formatter object (`new KebabCaseEndpointNameFormatter(includeNamespace: true)`,
   * `new SnakeCaseEndpointNameFormatter("dev", false)`, `DefaultEndpointNameFormatter`): style, namespace, prefix.
   */
  const formatterOf = (e: Node): string[] | undefined => {
    if (e.type !== 'object_creation_expression') return undefined;
    const style = /^(?:MassTransit\.)?(KebabCase|SnakeCase|Default)EndpointNameFormatter$/.exec(
      e.childForFieldName('type')?.text ?? '',
    )?.[1];
    if (!style) return undefined;
    let ns = false;
    let prefix = '';
    for (const a of named(e.childForFieldName('arguments'))) {
      const { expr } = argExpr(a);
      if (expr.text === 'true') ns = true;
      else if (expr.type === 'string_literal') prefix = literal(evaluate(expr)) ?? '';
    }
    return [style, ns ? 'namespace' : '', prefix];
  };

  function onInvocation(inv: Node): void {
    siteCall = inv;
    const fn = inv.childForFieldName('function');
    if (!fn) return;
    const calleeNode = fn.type === 'member_access_expression' ? fn.childForFieldName('name') : fn;
    const callee = (calleeNode?.type === 'generic_name' ? named(calleeNode)[0]?.text : calleeNode?.text) ?? '';
    // Every generic call is a possible bus registration (`AddSubscription<OrderPaid, Handler>()`): the
    // libraries' summaries, known once every source is read, say which are.
    if (calleeNode?.type === 'generic_name') {
      const types = named(named(calleeNode)[1] ?? null).map((t) => t.text.replace(/<.*$/, '').replace(/^.*\./, ''));
      // Inside a generic library method, `AddSubscription<T, TH>()` names its own type parameters, no message.
      const own = enclosingMethod(inv)?.typeParams ?? [];
      if (types.length && !types.every((t) => own.includes(t)))
        sink.busSite({ kind: 'generic', method: callee, types, loc: { file, line: lineOf(calleeNode) } });
    }
    typeNameArguments(inv, callee);
    // A method called on a variable, field or the service collection: where an object summary of any
    // source may be instantiated (`_publisher.PublishMessageAsync(…)`, `services.UseRabbitMQ(config)`).
    if (fn.type === 'member_access_expression' && /^[A-Z]/.test(callee)) {
      const recv = fn.childForFieldName('expression');
      if (recv && /^(identifier|member_access_expression)$/.test(recv.type)) objSite(callee, inv, false);
    }
    // `_orders.GetOrder(id)` on a field, parameter or local declared with a type of the application (an injected
    // Refit interface, `var api = RestService.For<IOrdersApi>(…)`): where a declared client's methods are called.
    if (fn.type === 'member_access_expression' && /^[A-Z]/.test(callee)) typedInvocation(inv, fn);
    // A call of another object's method with arguments, kept in case a wrapper of the source has that name.
    if (
      fn.type === 'member_access_expression' &&
      !/^(this\.)?_?(log|logger)$|^Console$/i.test(fn.childForFieldName('expression')?.text ?? '')
    ) {
      const a = named(inv.childForFieldName('arguments'));
      if (a.length > 0 && a.length <= 6)
        sink.sites.push({
          name: callee,
          args: a.map((x) => evaluate(argExpr(x).expr)),
          loc: { file, line: lineOf(inv) },
        });
    }
    if (
      !MINIMAL[callee] &&
      !HTTP_CLIENT[callee] &&
      !listenCall(callee, fn, inv) &&
      !CS_NAMES.has(callee) &&
      !(callee === 'Map' && /(^|\.)EndpointConvention$/.test(fn.childForFieldName('expression')?.text ?? '')) &&
      !OUTBOX.test(callee) &&
      !sharedRuleName(callee)
    )
      return;
    const argNodes = named(inv.childForFieldName('arguments'));
    const args: Part[][] = [];
    const nm = new Map<string, Part[]>();
    argNodes.forEach((a) => {
      const { name, expr } = argExpr(a);
      const v = evaluate(expr);
      if (name) nm.set(name, v);
      args.push(v);
    });
    const nameNode = fn.type === 'member_access_expression' ? fn.childForFieldName('name') : fn;
    const name = (nameNode?.type === 'generic_name' ? named(nameNode)[0]?.text : nameNode?.text) ?? '';
    const receiver = fn.type === 'member_access_expression' ? (fn.childForFieldName('expression')?.text ?? '') : '';
    const loc = { file, line: lineOf(inv) };

    // A library's publish method (`PublishAsync(IntegrationEvent e)` → `BasicPublish(exchange: X, routingKey:
    // e.GetType().Name)`) is summarised: its callers publish to X with their message's type name as key.
    if (/^BasicPublish(Async)?$/.test(name)) {
      const m = enclosingMethod(inv);
      const key = nm.get('routingKey') ?? args[1];
      const ex = literal(nm.get('exchange') ?? args[0]);
      const only = key?.length === 1 ? key[0]! : undefined;
      const typeOf = only && 'ref' in only ? /^@?(\w+)\.GetType\(\)\.Name$/.exec(only.ref.replace(/\s+/g, '')) : null;
      if (m && ex !== undefined && typeOf && m.params.includes(typeOf[1]!)) {
        sink.busSummary({ kind: 'publish', method: m.name, broker: 'rabbitmq', exchange: ex, loc });
        return;
      }
    }
    // A bind of one queue for each key of a registry member; the registering generic method is found in
    // the source's assignments (`o.EventTypes[typeof(T).Name] = …`) once the source is read.
    if (/^QueueBind(Async)?$/.test(name)) {
      const key = nm.get('routingKey') ?? args[2];
      const ex = literal(nm.get('exchange') ?? args[1]);
      const queue = nm.get('queue') ?? args[0];
      const only = key?.length === 1 ? key[0]! : undefined;
      const keyNode = argNodes.map(argExpr).find((a) => a.name === 'routingKey')?.expr ?? argNodes[2];
      const registry =
        (only && 'ref' in only ? foreachRegistry(inv, only.ref) : undefined) ?? parameterRegistry(inv, keyNode);
      if (registry && ex !== undefined && queue) {
        sink.registryBinds.push({ registry, exchange: ex, queue, loc });
        return;
      }
    }
    // `app.UsePathBase(pathBase)` with the base from a setting: the deployment's value is known at link time.
    if (name === 'UsePathBase' && args[0]?.length === 1) {
      const only = args[0][0]!;
      const key = 'config' in only ? only.config : 'env' in only ? only.env : undefined;
      if (key !== undefined) {
        const keys = ((sink.facts as { pathBaseKeys?: string[] }).pathBaseKeys ??= []);
        if (!keys.includes(key)) keys.push(key);
      }
      return;
    }
    // `services.Configure<EventBusOptions>(configuration.GetSection("EventBus"))`: the options class's section.
    if (name === 'Configure' && nameNode?.type === 'generic_name' && argNodes.length === 1) {
      const cls = named(named(nameNode)[1] ?? null)[0]?.text.replace(/^.*\./, '');
      const e = argExpr(argNodes[0]!).expr;
      const fnE = e.type === 'invocation_expression' ? e.childForFieldName('function') : null;
      if (cls && fnE?.type === 'member_access_expression' && fnE.childForFieldName('name')?.text === 'GetSection') {
        const value = evaluate(argExpr(named(e.childForFieldName('arguments'))[0] ?? e).expr);
        const section = literal(value);
        if (section !== undefined) sink.optionSections.set(cls, section);
        // `GetSection(RabbitMqOptions.SectionName)`: a constant of another file, resolved once the source is read.
        else if (value.length === 1 && 'ref' in value[0]!) sink.optionSections.set(cls, SECTION_REF + value[0].ref);
      }
      // `services.Configure<AppSettings>(configuration)`: the class binds the configuration's root.
      if (cls && /^(this\.)?\w*[Cc]onfiguration$/.test(e.text)) sink.optionSections.set(cls, '');
      return;
    }
    // A broker name given by a class constant of another file or source (`BasicPublish(Exchanges.Orders, …)`,
    // `ProduceAsync(Topics.Orders, …)`): resolved when linking (`applyChannelConstants`), else a run-time name.
    // Only the arguments that name something (not `type: ExchangeType.Topic`, not the body).
    const nameArgs = BROKER_NAME_ARGS.get(name.replace(/Async$/, '')) ?? 0;
    sharedCallRules(
      {
        name,
        receiver,
        args: nameArgs ? args.map((a, i) => (i < nameArgs ? markConstants(a) : a)) : args,
        named: nameArgs
          ? new Map([...nm].map(([k, v]) => [k, BROKER_NAME_PARAMS.has(k) ? markConstants(v) : v] as const))
          : nm,
        loc,
      },
      sink,
    );

    // MassTransit endpoint names: the formatter the bus is configured with, and explicit receive endpoints
    // (`cfg.ReceiveEndpoint("orders", e => e.ConfigureConsumer<OrderConsumer>(ctx))`).
    const formatter = /^Set(KebabCase|SnakeCase)EndpointNameFormatter$/.exec(name);
    if (formatter) {
      busSite({ kind: 'generic', method: 'EndpointNameFormatter', types: [formatter[1]!], loc });
      return;
    }
    if (name === 'ReceiveEndpoint' && argNodes.length >= 2) {
      // `ReceiveEndpoint(EventBusConstants.OrderQueue, …)`: a constant of another file or attached source (a shared
      // library), resolved when linking (`applyChannelConstants`), else a run-time queue.
      const only = args[0]?.length === 1 ? args[0][0] : undefined;
      const constant = only && 'ref' in only ? constantKey(only.ref) : undefined;
      // `ReceiveEndpoint(configuration["Queue"], …)`: a setting, resolved through the source's configuration.
      const queue = literal(args[0]) ?? (constant ? CONSTANT_MARK + constant : settingName(args[0]));
      const lambda = argExpr(argNodes[argNodes.length - 1]!).expr;
      const body = lambda.text;
      if (queue === undefined) return;
      // `e.ConfigureConsumeTopology = false`: no binding of the consumed message types' exchanges.
      const noTopology = /\bConfigureConsumeTopology\s*=\s*false\b/.test(body) ? 'noTopology' : '';
      for (const m of body.matchAll(/\b(?:ConfigureConsumer|Consumer)<([\w.]+)>/g))
        busSite({
          kind: 'generic',
          method: 'ReceiveEndpoint',
          types: [queue, m[1]!.replace(/^.*\./, ''), noTopology],
          loc,
        });
      // `e.Bind("orders", b => { b.RoutingKey = "eu"; b.ExchangeType = ExchangeType.Topic; })`: the endpoint's
      // queue bound to that exchange (fanout unless set) with that key.
      for (const b of callsIn(lambda)) {
        const bArgs = named(b.childForFieldName('arguments'));
        if (calleeName(b) !== 'Bind' || bArgs.length === 0) continue;
        const bFn = b.childForFieldName('function');
        const bName = bFn?.type === 'member_access_expression' ? bFn.childForFieldName('name') : bFn;
        if (bName?.type === 'generic_name') continue; // `Bind<T>()`: the message type's exchange
        const exchange = settingName(evaluate(argExpr(bArgs[0]!).expr));
        if (exchange === undefined) continue;
        const set = bArgs[1] ? assignedIn(argExpr(bArgs[1]).expr) : new Map<string, Node>();
        const keyNode = set.get('RoutingKey');
        const key = keyNode ? settingName(evaluate(keyNode)) : '';
        if (key === undefined) continue;
        busSite({
          kind: 'generic',
          method: 'MtBind',
          types: [queue, exchange, key, exchangeKind(set.get('ExchangeType')) ?? 'fanout'],
          loc: { file, line: lineOf(b) },
        });
      }
      return;
    }
    // MassTransit's endpoint name formatter given as an object (`ConfigureEndpoints(context, new
    // KebabCaseEndpointNameFormatter(true))`, `SetEndpointNameFormatter(new SnakeCaseEndpointNameFormatter("dev", false))`).
    if (name === 'ConfigureEndpoints' || name === 'SetEndpointNameFormatter') {
      const f = argNodes.map((a) => formatterOf(argExpr(a).expr)).find((x) => x !== undefined);
      if (f) busSite({ kind: 'generic', method: 'EndpointNameFormatter', types: f, loc });
      return;
    }
    // MassTransit message topology on the bus configurator, no message sent: `cfg.Message<T>(e =>
    // e.SetEntityName("orders"))` names T's exchange, `cfg.Publish<T>(e => e.ExchangeType = ExchangeType.Topic)`
    // sets its type, `cfg.Send<T>(e => e.UseRoutingKeyFormatter(ctx => ctx.Message.Region))` a run-time routing key.
    const typeArg = typeArgOf(nameNode);
    const onlyArg = argNodes.length === 1 ? argExpr(argNodes[0]!).expr : undefined;
    if (/^(Message|Publish|Send)$/.test(name) && typeArg && onlyArg?.type === 'lambda_expression' && busTopology(inv)) {
      if (name === 'Message')
        for (const c of callsIn(onlyArg)) {
          const a = named(c.childForFieldName('arguments'))[0];
          const entity = calleeName(c) === 'SetEntityName' && a ? settingName(evaluate(argExpr(a).expr)) : undefined;
          if (entity !== undefined)
            busSite({
              kind: 'generic',
              method: 'MtEntityName',
              types: [typeArg, entity],
              loc: { file, line: lineOf(c) },
            });
        }
      if (name === 'Publish') {
        const kind = exchangeKind(assignedIn(onlyArg).get('ExchangeType'));
        if (kind) busSite({ kind: 'generic', method: 'MtExchangeType', types: [typeArg, kind], loc });
      }
      if (name === 'Send')
        for (const c of callsIn(onlyArg))
          if (calleeName(c) === 'UseRoutingKeyFormatter')
            busSite({ kind: 'generic', method: 'MtRoutingKey', types: [typeArg], loc: { file, line: lineOf(c) } });
      return;
    }
    // `EndpointConvention.Map<T>(new Uri("queue:orders"))` (the address may be a setting): where a `Send(msg)`
    // of T without an address goes.
    if (name === 'Map' && /(^|\.)EndpointConvention$/.test(receiver) && typeArg && onlyArg) {
      const uri =
        onlyArg.type === 'object_creation_expression' &&
        /^(System\.)?Uri$/.test(onlyArg.childForFieldName('type')?.text ?? '')
          ? named(onlyArg.childForFieldName('arguments'))[0]
          : undefined;
      const address = settingName(evaluate(uri ? argExpr(uri).expr : onlyArg));
      if (address !== undefined) busSite({ kind: 'generic', method: 'MtConvention', types: [typeArg, address], loc });
      return;
    }

    // EasyNetQ: `bus.PubSub.PublishAsync(msg[, "topic" | c => c.WithTopic("t")])` (v3: `bus.Publish(msg)`),
    // `bus.PubSub.SubscribeAsync<T>(subscriptionId, handler[, c => c.WithTopic("t")])`, and
    // `bus.SendReceive.SendAsync("queue", msg)` / `ReceiveAsync("queue", …)`; names by its conventions (bus.ts).
    // Only on EasyNetQ's bus (`easyBus`).
    if (easyBus(inv, receiver) && /^(Publish|Subscribe|Send|Receive)(Async)?$/.test(name) && argNodes.length >= 1) {
      const generic = nameNode?.type === 'generic_name' ? named(named(nameNode)[1] ?? null)[0]?.text : undefined;
      const rest = argNodes.slice(1).map((a) => argExpr(a).expr);
      const topics = rest.flatMap((e) => [...e.text.matchAll(/\bWithTopic\(\s*"([^"]*)"\s*\)/g)].map((m) => m[1]!));
      const bare = (t: string): string => t.replace(/<.*$/, '').replace(/^.*\./, '');
      if (/^Publish/.test(name) && argNodes.length <= 3) {
        const topic = rest[0]?.type === 'string_literal' ? literal(evaluate(rest[0])) : topics[0];
        for (const m of new Set((generic ? [generic] : createdTypes(argExpr(argNodes[0]!).expr, inv)).map(bare)))
          if (m) busSite({ kind: 'generic', method: 'EasyPublish', types: [m, topic ?? ''], loc });
        return;
      }
      if (/^Subscribe/.test(name) && generic) {
        const first = argExpr(argNodes[0]!).expr;
        const id = /^nameof\(\s*([\w.]+)\s*\)$/.exec(first.text)?.[1]?.replace(/^.*\./, '') ?? literal(args[0]);
        if (id !== undefined)
          busSite({ kind: 'generic', method: 'EasySubscribe', types: [bare(generic), id, ...topics], loc });
        return;
      }
      // SendReceive: straight to a named queue through the default exchange.
      const queue = /SendReceive$/.test(receiver) || argNodes.length >= 2 ? literal(args[0]) : undefined;
      if (queue !== undefined && /^(Send|Receive)/.test(name))
        busSite({
          kind: 'generic',
          method: name.startsWith('Send') ? 'EasySend' : 'EasyReceive',
          types: [queue],
          loc,
        });
      if (queue !== undefined) return;
    }
    // A bus publish of a message object (`bus.Publish(new OrderCreated(…))`, `Publish<OrderCreated>(…)`,
    // `eventBus.PublishAsync(evt)` with `evt = new OrderPaid(…)` or `ok ? new Paid(…) : new Failed(…)`): one
    // site per type created; the bus library's summary, else MassTransit's convention, says what the broker sees.
    if ((name === 'Publish' || name === 'PublishAsync') && argNodes.length >= 1 && argNodes.length <= 3) {
      if (mediator(inv, receiver)) return;
      const generic = nameNode?.type === 'generic_name' ? named(named(nameNode)[1] ?? null)[0]?.text : undefined;
      const first = argExpr(argNodes[0]!).expr;
      const messages = generic ? [generic] : createdTypes(first, inv);
      const nsb = name === 'Publish' && usesNsb(inv);
      for (const m of new Set(messages.map((t) => t.replace(/<.*$/, '').replace(/^.*\./, ''))))
        if (m) busSite({ kind: nsb ? 'generic' : 'publish', method: nsb ? 'NsbPublish' : name, types: [m], loc });
      return;
    }
    // NServiceBus commands: `context.Send(new PlaceOrder(…))` / `Send<PlaceOrder>(…)` / `Send("Sales", msg)`,
    // the destination from the call, `options.SetDestination("Sales")` or the source's
    // `routing.RouteToEndpoint(typeof(PlaceOrder), "Sales")` (bus.ts).
    if (name === 'Send' && argNodes.length >= 1 && argNodes.length <= 3 && usesNsb(inv)) {
      const generic = nameNode?.type === 'generic_name' ? named(named(nameNode)[1] ?? null)[0]?.text : undefined;
      const dest = argNodes.length >= 2 ? literal(args[0]) : undefined;
      const msgNode = argExpr(argNodes[dest !== undefined ? 1 : 0]!).expr;
      let explicit = dest;
      // `var options = new SendOptions(); options.SetDestination("Sales"); … Send(msg, options)`
      const opts = argNodes.length >= 2 ? argExpr(argNodes[argNodes.length - 1]!).expr.text : undefined;
      const body = (enclosingBody(inv) ?? inv.tree.rootNode).text;
      if (explicit === undefined && opts) {
        const set = new RegExp(String.raw`\b${opts.replace(/\W/g, '')}\s*\.\s*SetDestination\(\s*"([^"]+)"`).exec(body);
        if (set) explicit = set[1];
      }
      const messages = generic ? [generic] : createdTypes(msgNode, inv);
      for (const m of new Set(messages.map((t) => t.replace(/<.*$/, '').replace(/^.*\./, ''))))
        if (m) busSite({ kind: 'generic', method: 'NsbSend', types: explicit ? [m, explicit] : [m], loc });
      return;
    }
    // MassTransit: `bus.Send(new Order { … })` without an address, on the bus or a send endpoint provider: sent
    // where the source's `EndpointConvention.Map<Order>(…)` says (bus.ts).
    // On a send endpoint the bus gives for an address (`var ep = await provider.GetSendEndpoint(new
    // Uri("queue:orders")); await ep.Send(msg)`): sent to that address.
    const sendAddress =
      name === 'Send' && fn.type === 'member_access_expression' && usesMassTransit(inv)
        ? sendEndpointAddress(fn.childForFieldName('expression'))
        : undefined;
    if (
      name === 'Send' &&
      argNodes.length >= 1 &&
      argNodes.length <= 2 &&
      usesMassTransit(inv) &&
      (sendAddress !== undefined ||
        /^(this\.)?_?context$/.test(receiver) ||
        declaredWith(inv, 'IBus|IBusControl|ISendEndpointProvider|ConsumeContext(?:<[\\w.]+>)?', receiver))
    ) {
      const first = argExpr(argNodes[0]!).expr;
      if (first.type === 'lambda_expression') return;
      const messages = typeArg ? [typeArg] : createdTypes(first, inv);
      // An address but no known message type: still sent to that address's exchange.
      if (sendAddress !== undefined && messages.length === 0)
        busSite({ kind: 'generic', method: 'MtSendTo', types: [sendAddress], loc });
      for (const m of new Set(messages.map((t) => t.replace(/<.*$/, '').replace(/^.*\./, ''))))
        if (m)
          busSite({
            kind: 'generic',
            method: 'MtSend',
            types: sendAddress !== undefined ? [m, sendAddress] : [m],
            loc,
          });
      return;
    }
    if (name === 'RouteToEndpoint' && argNodes.length === 2) {
      const t = /^typeof\(\s*([\w.]+)\s*\)$/.exec(argExpr(argNodes[0]!).expr.text)?.[1];
      const dest = literal(args[1]);
      if (t && dest !== undefined)
        busSite({ kind: 'generic', method: 'NsbRoute', types: [t.replace(/^.*\./, ''), dest], loc });
      return;
    }
    // The outbox of integration events (`integrationEventService.AddAndSaveEventAsync(evt)`, published
    // through the source's event bus once the transaction commits): a publish site of each `…Event` type.
    if (OUTBOX.test(name) && argNodes.length === 1) {
      const types = createdTypes(argExpr(argNodes[0]!).expr, inv).map((t) =>
        t.replace(/<.*$/, '').replace(/^.*\./, ''),
      );
      for (const m of new Set(types)) if (/Event$/.test(m)) busSite({ kind: 'publish', method: '*', types: [m], loc });
      return;
    }
    // YARP direct forwarding, `app.MapForwarder("/images/{id}", "http://catalog-api", "/api/items/{id}/pic")`:
    // a call of the destination (its prefix and the target path, else the pattern itself).
    if (name === 'MapForwarder' && args[0] && args[1]) {
      sink.call('ANY', concat(args[1], args[2] ?? args[0]), 'YARP', loc);
      return;
    }
    if (MINIMAL[name] || name === 'MapMethods') {
      const path = literal(args[0]);
      if (path === undefined) return;
      const prefix =
        groupPrefix(fn.type === 'member_access_expression' ? fn.childForFieldName('expression') : null) ?? '';
      const methods =
        name === 'MapMethods' ? (nameOf(args[1]) ?? '').split(LIST_SEP).filter(Boolean) : [MINIMAL[name]!];
      for (const m of methods) sink.endpoint(httpMethod(m) ?? 'ANY', joinPath(prefix, path), 'aspnetcore-minimal', loc);
      return;
    }
    /** `factory.CreateClient("orders").GetAsync(…)`: the named client of the chain. */
    function chainedClientName(): string | undefined {
      const target = fn?.type === 'member_access_expression' ? fn.childForFieldName('expression') : null;
      if (target?.type !== 'invocation_expression') return undefined;
      const inner = target.childForFieldName('function');
      if (inner?.type !== 'member_access_expression' || inner.childForFieldName('name')?.text !== 'CreateClient')
        return undefined;
      const first = named(target.childForFieldName('arguments'))[0];
      return first ? literal(evaluate(argExpr(first).expr)) : undefined;
    }
    if (HTTP_CLIENT[name] && args[0] && (namedClients.has(receiver) || /http|client/i.test(receiver))) {
      const own = clientBases.get(receiver.replace(/^this\./, '')) ?? clientBases.get(receiver.replace(/^_/, ''));
      if (own) {
        sink.call(HTTP_CLIENT[name], withBase(own, args[0]), 'HttpClient', loc);
        return;
      }
      const clientClass = namedClients.get(receiver) ?? chainedClientName() ?? enclosingClass(inv);
      // A typed client held in a field (`CustomersHttpClient _client`): its class's base address, when the
      // enclosing class has none (index.ts).
      const clientType = namedClients.has(receiver) ? undefined : receiverType(inv, receiver);
      sink.call(HTTP_CLIENT[name], args[0], 'HttpClient', loc, {
        ...(clientClass ? { clientClass } : {}),
        ...(clientType ? { clientType } : {}),
      });
      // A method whose URL is its parameter (`RequestProvider.GetAsync(string uri)` → `http.GetAsync(uri)`)
      // is a wrapper: its callers elsewhere in the source make the call with their URL.
      const w = paramWrapper(enclosingMethod(inv), args[0]);
      if (w) sink.wrappers.push({ ...w, method: HTTP_CLIENT[name], client: 'HttpClient', loc });
      return;
    }
    if (listenCall(name, fn, inv) && argNodes.length > 0) {
      listenSite(name, receiver, args);
      return;
    }
    if (name === 'AddHttpClient') {
      // AddHttpClient<OrdersClient>(c => c.BaseAddress = new Uri(...)); AddHttpClient("billing", c => ...)
      const generic = nameNode?.type === 'generic_name' ? named(named(nameNode)[1]).map((t) => t.text) : [];
      const key = generic[generic.length - 1] ?? literal(args[0]);
      const lambda = argNodes.map((a) => argExpr(a).expr).find((e) => e.type === 'lambda_expression');
      const base = lambda ? findBaseAddress(lambda) : undefined;
      if (key && base && key !== '__proto__') sink.facts.clientBases[key] = base;
      return;
    }
    // Refit: services.AddRefitClient<IOrdersApi>().ConfigureHttpClient(c => c.BaseAddress = new Uri(…)) and
    // RestService.For<IOrdersApi>("http://orders") give the interface's calls their base address.
    if (name === 'ConfigureHttpClient') {
      const target = fn.type === 'member_access_expression' ? fn.childForFieldName('expression') : null;
      const inner = target?.type === 'invocation_expression' ? target.childForFieldName('function') : null;
      const gen = inner?.type === 'member_access_expression' ? inner.childForFieldName('name') : inner;
      const key =
        gen?.type === 'generic_name' && named(gen)[0]?.text === 'AddRefitClient'
          ? named(named(gen)[1] ?? null)[0]?.text
          : undefined;
      const lambda = argNodes.map((a) => argExpr(a).expr).find((e) => e.type === 'lambda_expression');
      const base = lambda ? findBaseAddress(lambda) : undefined;
      if (key && base && key !== '__proto__') sink.facts.clientBases[key] = base;
      return;
    }
    // RestEase: RestClient.For<IOrdersApi>(url) and services.AddRestEaseClient<IOrdersApi>(url) do the same.
    if (
      ((name === 'For' && /^(RestService|RestClient)$/.test(receiver)) || name === 'AddRestEaseClient') &&
      nameNode?.type === 'generic_name' &&
      argNodes[0]
    ) {
      const key = named(named(nameNode)[1] ?? null)[0]?.text;
      const arg = argExpr(argNodes[0]).expr;
      // The argument is the base address, or an HttpClient whose BaseAddress this file sets.
      const base = clientBases.get(arg.text.replace(/^this\./, '')) ?? args[0];
      if (key && base && key !== '__proto__') sink.facts.clientBases[key] = base;
      return;
    }
    if (name === 'AddProject' && args[0]) {
      // Aspire AppHost: builder.AddProject<Projects.Catalog_Api>("catalog-api") names the project's
      // service (`https+http://catalog-api`); Projects.Catalog_Api is the project Catalog.Api.
      const generic = nameNode?.type === 'generic_name' ? named(named(nameNode)[1]).map((t) => t.text) : [];
      const project = generic[0]?.replace(/^Projects\./, '');
      const service = literal(args[0]);
      if (project && service)
        sink.facts.services.push({
          name: service,
          targets: [project.replace(/_/g, '.'), project.replace(/_/g, '-'), project],
          env: [],
          loc,
        });
      return;
    }
    if (name === 'ToTable' && args[0]) {
      const t = literal(args[0]);
      if (t) {
        sink.data('table', t, loc);
        const entity = configuredEntity(inv);
        if (entity) sink.entityTables.set(entity.toLowerCase(), t.toLowerCase());
      }
    }
  }

  /**
   * The entity a `ToTable` configures: `modelBuilder.Entity<T>()…ToTable`, inside `Entity<T>(b => …)`, or in
   * `Configure(EntityTypeBuilder<T> builder)` of an `IEntityTypeConfiguration<T>`.
   */
  function configuredEntity(inv: Node): string | undefined {
    const entityOf = (text: string, re: RegExp): string | undefined => re.exec(text)?.[1];
    const fn = inv.childForFieldName('function');
    const chain = fn?.type === 'member_access_expression' ? fn.childForFieldName('expression')?.text : undefined;
    const direct = chain ? entityOf(chain, /\bEntity<(?:[\w.]+\.)?(\w+)>\s*\(/) : undefined;
    if (direct) return direct;
    for (let n = inv.parent; n; n = n.parent) {
      if (n.type === 'invocation_expression') {
        const f = n.childForFieldName('function')?.text ?? '';
        const e = entityOf(f, /\bEntity<(?:[\w.]+\.)?(\w+)>$/);
        if (e) return e;
      }
      if (n.type === 'method_declaration') {
        const e = entityOf(n.childForFieldName('parameters')?.text ?? '', /EntityTypeBuilder<(?:[\w.]+\.)?(\w+)>/);
        if (e) return e;
      }
    }
    return undefined;
  }

  /** The types an expression creates: `new T(…)`, a conditional of two, or a local variable initialised so. */
  /**
   * A method's assignments by their left side's text, in document order: those the walk met within the method
   * (every call in the method with a variable for argument asks for them; a descent per call was a cost).
   */
  const assignments = new Map<number, Map<string, Node[]>>();
  function assignmentsIn(body: Node): Map<string, Node[]> {
    let found = assignments.get(body.startIndex);
    if (found) return found;
    found = new Map<string, Node[]>();
    const end = body.endIndex;
    for (let i = firstAt(assignmentNodes, body.startIndex); i < assignmentNodes.length; i++) {
      const n = assignmentNodes[i]!;
      if (n.startIndex >= end) break;
      const left = n.childForFieldName('left')?.text;
      if (left === undefined) continue;
      const list = found.get(left);
      if (list) list.push(n);
      else found.set(left, [n]);
    }
    assignments.set(body.startIndex, found);
    return found;
  }

  /**
   * The type a name is declared with where `from` sees it: the parameter or typed local of the innermost function
   * around `from` that declares it (`OrderPlaced result;`, `(PlaceOrder order, IPublishEndpoint bus) => …`); none
   * for `object`, `dynamic`, a built-in type or a type parameter of the functions around it.
   */
  function declaredTypeOf(name: string, from: Node): string | undefined {
    let best: { start: number; decl: Node } | undefined;
    for (const decl of typedLocals.get(name) ?? []) {
      let fn: Node | null = decl.parent;
      while (fn && !FUNCTIONS.has(fn.type)) fn = fn.parent;
      // A local of top-level statements (`Program.cs`) is the file's.
      fn ??= decl.tree.rootNode;
      if (fn.startIndex > from.startIndex || fn.endIndex < from.endIndex) continue;
      if (!best || fn.startIndex > best.start) best = { start: fn.startIndex, decl };
    }
    if (!best) return undefined;
    const d = best.decl;
    const type = (d.type === 'parameter' ? d : d.parent)?.childForFieldName('type')?.text.replace(/\?$/, '');
    if (!type || !/^[A-Z][\w.]*$/.test(type) || /^(System\.)?(Object|String|Type)$/.test(type)) return undefined;
    for (let p: Node | null = from.parent; p; p = p.parent) {
      const params = named(p).find((x) => x.type === 'type_parameter_list');
      if (params && named(params).some((x) => x.text === type)) return undefined;
    }
    return type;
  }

  /**
   * The message types an expression creates: `new T(…)`, mapper calls, both sides of a conditional, a variable's
   * values. A target-typed `new(…)` is the type its variable is declared with; a variable of no value found (a
   * parameter, a value from a call) is its declared type where the bus types messages statically (MassTransit's
   * `Publish<T>(T message)` publishes T).
   */
  function createdTypes(e: Node, from: Node, depth = 0): string[] {
    if (depth > 4) return [];
    if (e.type === 'object_creation_expression') return [e.childForFieldName('type')?.text ?? ''];
    if (e.type === 'implicit_object_creation_expression') return [TARGET_TYPED];
    if ((e.type === 'parenthesized_expression' || e.type === 'equals_value_clause') && named(e)[0])
      return createdTypes(named(e)[0]!, from, depth + 1);
    if (e.type === 'conditional_expression') {
      const a = e.childForFieldName('consequence');
      const b = e.childForFieldName('alternative');
      return [...(a ? createdTypes(a, from, depth + 1) : []), ...(b ? createdTypes(b, from, depth + 1) : [])];
    }
    // Object mappers create their type argument: `dto.Adapt<OrderPlaced>()` (Mapster), `mapper.Map<OrderPlaced>(dto)`.
    if (e.type === 'invocation_expression') {
      const fn = e.childForFieldName('function');
      const g = fn?.type === 'member_access_expression' ? fn.childForFieldName('name') : fn;
      if (g?.type === 'generic_name' && /^(Adapt|Map)$/.test(named(g)[0]?.text ?? '')) {
        const args = named(named(g)[1] ?? null);
        return args.length === 1 ? [args[0]!.text] : [];
      }
    }
    if (e.type === 'cast_expression') {
      const v = e.childForFieldName('value') ?? named(e).pop();
      return v ? createdTypes(v, from, depth + 1) : [];
    }
    if (e.type === 'identifier') {
      // The declaration's value and every assignment to the variable in the method (`x = ok ? … : …`,
      // `if (ok) x = new A(…); else x = new B(…);`).
      const decl = scope.node(e.text, from);
      const out = decl ? createdTypes(decl, from, depth + 1) : [];
      let body: Node | null = from.parent;
      while (body && body.type !== 'method_declaration' && body.type !== 'local_function_statement') body = body.parent;
      for (const a of body ? (assignmentsIn(body).get(e.text) ?? []) : []) {
        const r = a.childForFieldName('right');
        if (r) out.push(...createdTypes(r, from, depth + 1));
      }
      const targetTyped = out.includes(TARGET_TYPED);
      if (targetTyped || (out.length === 0 && usesMassTransit(from))) {
        const declared = declaredTypeOf(e.text, from);
        return [...out.filter((t) => t !== TARGET_TYPED), ...(declared ? [declared] : [])];
      }
      return out;
    }
    return [];
  }

  function findBaseAddress(n: Node): Part[] | undefined {
    if (n.type === 'assignment_expression' && /BaseAddress$/.test(n.childForFieldName('left')?.text ?? '')) {
      const r = n.childForFieldName('right');
      return r ? evaluate(r) : undefined;
    }
    for (const c of named(n)) {
      const r = findBaseAddress(c);
      if (r) return r;
    }
    return undefined;
  }

  /**
   * Outbox: a method that stores a message's type by name (`msg.GetType().ToString()` handed to an `Add`/`Save…`
   * of the store), with the methods it calls (local functions included), for the entry methods of the outbox.
   */
  function outboxMethod(m: Node): void {
    const name = m.childForFieldName('name')?.text;
    const body = m.childForFieldName('body') ?? named(m).find((x) => x.type === 'arrow_expression_clause');
    if (!name || !body) return;
    const calls = new Set<string>();
    // The body's invocations are those starting within it: found among the walk's, not by a descent of its own.
    const end = body.endIndex;
    for (
      let i = firstAt(invocations, body.startIndex);
      i < invocations.length && invocations[i]!.startIndex < end;
      i++
    ) {
      const inv = invocations[i]!;
      if (calls.size >= 64) break;
      const f = inv.childForFieldName('function');
      const n = f?.type === 'member_access_expression' ? f.childForFieldName('name') : f;
      const id = n?.type === 'generic_name' ? named(n)[0]?.text : n?.text;
      // The dual of an outbox, an inbox of received or internal messages, shares the store: not an outbox path.
      const via = `${id ?? ''} ${inv.childForFieldName('arguments')?.text ?? ''}`;
      if (id && /^[A-Z]\w*$/.test(id) && id !== name && !/Inbox|Receiv|Internal/.test(via)) calls.add(id);
    }
    const text = body.text;
    // The type of a parameter (`messageEnvelope.Message.GetType().ToString()`), not of a local.
    const params = new Set(
      named(m.childForFieldName('parameters')).map((p) => p.childForFieldName('name')?.text ?? ''),
    );
    const saves =
      [
        ...text.matchAll(
          /\b(\w+)(?:\.\w+)*\.GetType\(\)\s*\.\s*(?:ToString\(\)|(?:FullName|Name|AssemblyQualifiedName)\b)/g,
        ),
      ].some((x) => params.has(x[1]!)) && /\.(Add|AddAsync|AddRange\w*|Insert\w*|Save\w*)\(/.test(text);
    if (calls.size || saves)
      (sink.facts.outboxMethods ??= []).push({ name, calls: [...calls], ...(saves ? { saves: true as const } : {}) });
  }

  /** Outbox: a publish of a message whose type is rebuilt from a stored name; a call handing created objects on. */
  function outboxCall(inv: Node): void {
    const f = inv.childForFieldName('function');
    if (f?.type !== 'member_access_expression') return;
    const n = f.childForFieldName('name');
    const name = n?.type === 'generic_name' ? named(n)[0]?.text : n?.text;
    if (!name) return;
    // The callee's name decides before the arguments are read: most calls are neither a publish nor a hand-off.
    const publish = /^(Publish|Send|Produce)(Async)?$/.test(name);
    const handOff = !NOT_A_HAND_OFF.test(name) && (sink.facts.outboxSites?.length ?? 0) < MAX_SITES_PER_FILE;
    if (!publish && !handOff) return;
    const first = named(inv.childForFieldName('arguments'))[0];
    if (!first) return;
    const loc = { file, line: lineOf(inv) };
    const arg = argExpr(first).expr;
    if (publish && arg.type === 'identifier') {
      let m: Node | null = inv.parent;
      while (m && m.type !== 'method_declaration') m = m.parent;
      if (m && RUNTIME_TYPE.test(m.text)) (sink.facts.outboxPublishes ??= []).push({ method: name, loc });
      return;
    }
    if (!handOff) return;
    const types = [...new Set(createdTypes(arg, inv).map((t) => t.replace(/<.*$/, '').replace(/^.*\./, '')))].filter(
      (t) => /^[A-Z]\w*$/.test(t),
    );
    if (types.length) (sink.facts.outboxSites ??= []).push({ name, types, loc });
  }

  /** A site where an object summary of any source may be instantiated (ADR 0062). */
  function objSite(name: string, at: Node, isNew: boolean): void {
    if (fileSites >= MAX_SITES_PER_FILE) return;
    const args = named(at.childForFieldName('arguments')).map((x) => siteValue(argExpr(x).expr, evaluate));
    if (args.length > 8) return;
    fileSites++;
    (sink.facts.objSites ??= []).push({ name, ...(isNew ? { isNew } : {}), args, loc: { file, line: lineOf(at) } });
  }

  function onCreation(c: Node): void {
    const typeNode = c.childForFieldName('type');
    const created = (typeNode?.type === 'generic_name' ? named(typeNode)[0]?.text : typeNode?.text)?.replace(
      /^.*\./,
      '',
    );
    if (created && /^[A-Z]/.test(created) && named(c.childForFieldName('arguments')).length > 0)
      objSite(created, c, true);
    const type = c.childForFieldName('type')?.text;
    // NServiceBus: `new EndpointConfiguration("Sales")` names the endpoint, its queue and its exchange.
    if (type === 'EndpointConfiguration') {
      const a0 = named(c.childForFieldName('arguments'))[0];
      const endpoint = a0 ? literal(evaluate(argExpr(a0).expr)) : undefined;
      if (endpoint)
        sink.busSite({ kind: 'generic', method: 'NsbEndpoint', types: [endpoint], loc: { file, line: lineOf(c) } });
      return;
    }
    if (type !== 'HttpRequestMessage') return;
    const a = named(c.childForFieldName('arguments')).map((x) => argExpr(x).expr);
    let method = a[0];
    let uri = a[1];
    // new HttpRequestMessage { Method = HttpMethod.Post, RequestUri = new Uri(…) }
    const init = named(c).find((x) => x.type === 'initializer_expression');
    for (const asg of named(init)) {
      if (asg.type !== 'assignment_expression') continue;
      const left = asg.childForFieldName('left')?.text;
      const right = asg.childForFieldName('right');
      if (left === 'Method' && right) method = right;
      if (left === 'RequestUri' && right) uri = right;
    }
    if (!uri) return;
    const clientClass = enclosingClass(c);
    sink.call(
      httpMethod(method?.text.replace(/^HttpMethod\./, '')) ?? 'GET',
      evaluate(uri),
      'HttpClient',
      { file, line: lineOf(c) },
      clientClass ? { clientClass } : {},
    );
  }

  /** The namespace a type is declared in (block or file-scoped), when the file says. */
  function namespaceOf(node: Node): string | undefined {
    for (let n: Node | null = node.parent; n; n = n.parent) {
      if (n.type === 'namespace_declaration' || n.type === 'file_scoped_namespace_declaration')
        return n.childForFieldName('name')?.text;
      if (n.type === 'compilation_unit') {
        // Looked up once per unit: listing its children for every class made N top-level classes N² nodes.
        if (!unitNamespaces.has(n.id))
          unitNamespaces.set(
            n.id,
            named(n)
              .find((x) => x.type === 'file_scoped_namespace_declaration')
              ?.childForFieldName('name')?.text,
          );
        return unitNamespaces.get(n.id);
      }
    }
    return undefined;
  }

  // `const string Name = "…"` (or `static readonly string`) of a class: `Class.Name` among the source's channel
  // constants, for the files and sources that name it (`applyChannelConstants`); two values are none.
  function onConstField(node: Node): void {
    const mods = named(node)
      .filter((x) => x.type === 'modifier')
      .map((x) => x.text);
    if (!mods.includes('const') && !(mods.includes('static') && mods.includes('readonly'))) return;
    const decl = named(node).find((x) => x.type === 'variable_declaration');
    if (!/^(string|String|System\.String)$/.test(decl?.childForFieldName('type')?.text ?? '')) return;
    const owner = node.parent?.parent;
    if (!owner || !/^(class|struct|record)_declaration$/.test(owner.type)) return;
    const cls = owner.childForFieldName('name')?.text;
    if (!cls) return;
    for (const v of named(decl).filter((x) => x.type === 'variable_declarator')) {
      const children = named(v);
      const name = v.childForFieldName('name')?.text ?? children[0]?.text;
      const init = children.slice(1).pop();
      const value = init ? literal(evaluate(init)) : undefined;
      if (!name || value === undefined) continue;
      const consts = (sink.facts.channelConstants ??= {});
      const key = `${cls}.${name}`;
      consts[key] = key in consts && consts[key] !== value ? AMBIGUOUS_CONSTANT : value;
    }
  }

  /**
   * Where the program listens: `UseUrls("http://*:5000")`, `app.Urls.Add(url)`, `app.Run(url)`, Kestrel's
   * `ListenAnyIP(5000)` / `ListenLocalhost(5000)` / `Listen(IPAddress.Any, 5000)`; kept as URLs (link.ts).
   */
  function listenSite(name: string, receiver: string, args: Part[][]): void {
    const urls: Part[][] = [];
    if (name === 'UseUrls') urls.push(...args);
    else if (name === 'Add' && /(^|\.)Urls$/.test(receiver)) urls.push(args[0]!);
    else if (name === 'Run' && /^https?:\/\//.test(literal(args[0]) ?? '')) urls.push(args[0]!);
    else if (/^Listen(AnyIP|Localhost)?$/.test(name)) {
      const port = literal(args[name === 'Listen' ? 1 : 0]);
      if (port && /^\d+$/.test(port)) urls.push(lit(`http://*:${port}`));
    }
    // `UseUrls("http://*:5000;http://*:5001")`, `UseUrls(url1, url2)`: each address.
    for (const u of urls) if (u.some((p) => !('hole' in p))) (sink.facts.listenUrls ??= []).push(u);
  }

  /** An HttpClient subclass's constructor setting its own `BaseAddress` (`this.BaseAddress = new Uri(…)`). */
  function onConstructor(ctor: Node): void {
    const cls = ctor.parent?.parent;
    if (cls?.type !== 'class_declaration' || !named(cls).some((x) => x.type === 'base_list')) return;
    const className = cls.childForFieldName('name')?.text;
    const end = ctor.endIndex;
    for (let i = firstAt(assignmentNodes, ctor.startIndex); i < assignmentNodes.length; i++) {
      const a = assignmentNodes[i]!;
      if (a.startIndex >= end) break;
      if (!/^(?:(?:this|base)\.)?BaseAddress$/.test(a.childForFieldName('left')?.text ?? '')) continue;
      const right = a.childForFieldName('right');
      if (className && right && className !== '__proto__')
        (sink.facts.ctorBaseAddresses ??= {})[className] = evaluate(right);
    }
  }

  function onClass(cls: Node): void {
    const attrs = attributes(cls);
    const className = cls.childForFieldName('name')?.text ?? '';
    // A type's namespace: MassTransit names a message's exchange `Namespace:Type` (bus.ts).
    const ns = namespaceOf(cls);
    if (className && ns) sink.facts.typeNamespaces ??= {};
    if (className && ns && sink.facts.typeNamespaces) sink.facts.typeNamespaces[className] = ns;
    // Its file: the project around it names its assembly (EasyNetQ names exchanges `Namespace.Type, Assembly`).
    if (className) (sink.facts.typeFiles ??= {})[className] = file;
    if (cls.type !== 'class_declaration') return;
    // Its base class, for the typed clients deriving from HttpClient through a base class of the source.
    const firstBase = named(named(cls).find((x) => x.type === 'base_list') ?? null)[0];
    const baseName = firstBase?.text.replace(/<.*$/s, '').replace(/^.*\./, '');
    if (className && baseName && className !== '__proto__') (sink.facts.typeBases ??= {})[className] = baseName;
    const summary = summariseCsharpClass(cls, file, evaluate);
    if (summary) (sink.facts.objClasses ??= []).push(summary);
    // MassTransit: a consumer of T (`class X : IConsumer<T>`) gets its own receive endpoint (a queue named by
    // the source's endpoint name formatter, or its `ReceiveEndpoint`) bound to the exchange of T (bus.ts).
    for (const base of named(named(cls).find((x) => x.type === 'base_list') ?? null)) {
      // NServiceBus: `class X : IHandleMessages<A>, IHandleMessages<B>` handles A and B in its endpoint.
      if (base.type === 'generic_name' && named(base)[0]?.text === 'IHandleMessages') {
        const message = named(named(base)[1] ?? null)[0]?.text.replace(/^.*\./, '');
        if (message && className)
          sink.busSite({
            kind: 'generic',
            method: 'IHandleMessages',
            types: [message, className],
            loc: { file, line: lineOf(base) },
          });
        continue;
      }
      if (base.type !== 'generic_name' || named(base)[0]?.text !== 'IConsumer') continue;
      const args = named(named(base)[1] ?? null);
      const message = args[0]?.text;
      // Confluent.Kafka's IConsumer<TKey, TValue> is no MassTransit consumer.
      if (!message || !className || args.length !== 1) continue;
      sink.busSite({
        kind: 'generic',
        method: 'IConsumer',
        types: [message, className],
        loc: { file, line: lineOf(base) },
      });
    }
    const table = attrs.find((a) => a.name === 'Table');
    const tableName = table?.args[0] ? literal(table.args[0]) : undefined;
    if (table?.args[0] && !isClientModel(file)) sink.data('table', tableName ?? className, { file, line: table.line });
    if (tableName && !isClientModel(file)) sink.entityTables.set(className.toLowerCase(), tableName.toLowerCase());
    const route = attrs.find((a) => a.name === 'Route');
    const isController = /Controller$/.test(className) || attrs.some((a) => a.name === 'ApiController');
    const controllerToken = className.replace(/Controller$/, '');
    const prefix = route ? (literal(route.args[0]) ?? '') : '';
    for (const member of named(cls.childForFieldName('body'))) {
      if (member.type === 'property_declaration') {
        // EF Core: public DbSet<Order> Orders { get; set; }
        const type = member.childForFieldName('type')?.text ?? '';
        const pname = member.childForFieldName('name')?.text;
        const entity = /^DbSet<(?:[\w.]+\.)?(\w+)>$/.exec(type)?.[1];
        if (entity && pname) sink.dbSets.push({ entity, property: pname, loc: { file, line: lineOf(member) } });
        continue;
      }
      if (member.type !== 'method_declaration' || !isController) continue;
      const mattrs = attributes(member);
      const methodName = member.childForFieldName('name')?.text ?? '';
      const mRoute = mattrs.find((a) => a.name === 'Route');
      const verbs = mattrs.filter((a) => ATTR_VERBS[a.name] || a.name === 'AcceptVerbs');
      if (verbs.length === 0 && !mRoute) continue;
      const subPaths: { method: HttpMethod; path: string; line: number }[] = [];
      for (const v of verbs.length ? verbs : [{ name: 'Route', args: [] as Part[][], line: mRoute!.line }]) {
        const method = ATTR_VERBS[v.name] ?? 'ANY';
        const p = literal(v.args[0]) ?? (mRoute ? (literal(mRoute.args[0]) ?? '') : '');
        subPaths.push({ method, path: p, line: v.line });
      }
      for (const s of subPaths) {
        const abs = s.path.startsWith('/') || s.path.startsWith('~/');
        const full = (abs ? s.path.replace(/^~/, '') : joinPath(prefix, s.path))
          .replace(/\[controller\]/gi, controllerToken)
          .replace(/\[action\]/gi, methodName);
        sink.endpoint(s.method, joinPath(full), 'aspnetcore-mvc', { file, line: s.line });
      }
    }
  }

  /**
   * Refit and RestEase: each `[Get("/x")]` method of an interface is a call through the interface's
   * registered base; RestEase paths are relative to the interface's `[BasePath("orders")]`.
   */
  function onInterface(iface: Node): void {
    const name = iface.childForFieldName('name')?.text;
    if (!name) return;
    const basePath = attributes(iface).find((a) => a.name === 'BasePath')?.args[0];
    const restEase = basePath !== undefined || /\bRestEase\b/.test(iface.tree.rootNode.text);
    for (const member of named(iface.childForFieldName('body'))) {
      if (member.type !== 'method_declaration') continue;
      for (const a of attributes(member)) {
        const method = REFIT_VERBS[a.name];
        const given = method && a.args[0] ? a.args[0] : undefined;
        if (!method || !given) continue;
        const rel = literal(given);
        const path =
          rel !== undefined && !/^\w+:\/\//.test(rel)
            ? concat(lit('/'), basePath ? concat(basePath, lit('/')) : [], lit(rel.replace(/^\//, '')))
            : given;
        // The method's name: a service of another source calling it through the interface makes the call there.
        const clientMethod = member.childForFieldName('name')?.text;
        sink.call(
          method,
          path,
          restEase ? 'RestEase' : 'Refit',
          { file, line: a.line },
          {
            clientClass: name,
            ...(clientMethod ? { clientMethod } : {}),
          },
        );
      }
    }
  }

  function attributes(decl: Node): { name: string; args: Part[][]; line: number }[] {
    const out: { name: string; args: Part[][]; line: number }[] = [];
    for (const list of named(decl)) {
      if (list.type !== 'attribute_list') continue;
      for (const attr of named(list)) {
        if (attr.type !== 'attribute') continue;
        const name = (attr.childForFieldName('name')?.text ?? named(attr)[0]?.text ?? '').replace(/Attribute$/, '');
        const argList = named(attr).find((x) => x.type === 'attribute_argument_list');
        const args = named(argList).map((a) => {
          const kids = named(a);
          return evaluate(kids[kids.length - 1] ?? a);
        });
        out.push({ name, args, line: lineOf(attr) });
      }
    }
    return out;
  }

  return {
    grpc: CSHARP_GRPC,
    evaluate,
    declarations: {
      parameter(node) {
        const pn = node.childForFieldName('name')?.text;
        if (pn && node.childForFieldName('type')) pushTo(typedLocals, pn, node);
        const cls = OPTIONS_TYPE.exec(node.childForFieldName('type')?.text ?? '')?.[1];
        const n = node.childForFieldName('name')?.text;
        if (cls && n) optionsParams.set(n, cls.replace(/^.*\./, ''));
      },
      // `private readonly IOptions<AppSettings> _settings;`: a field of an options type, read as the parameter.
      field_declaration(node) {
        const decl = named(node).find((x) => x.type === 'variable_declaration');
        const cls = OPTIONS_TYPE.exec(decl?.childForFieldName('type')?.text ?? '')?.[1];
        if (cls)
          for (const v of named(decl).filter((x) => x.type === 'variable_declarator')) {
            const n = v.childForFieldName('name')?.text ?? named(v)[0]?.text;
            if (n) optionsParams.set(n, cls.replace(/^.*\./, ''));
          }
      },
      variable_declarator(node) {
        const vn = node.childForFieldName('name')?.text ?? named(node)[0]?.text;
        const t =
          node.parent?.type === 'variable_declaration' ? node.parent.childForFieldName('type')?.text : undefined;
        if (vn && t && t !== 'var' && node.parent?.parent?.type === 'local_declaration_statement')
          pushTo(typedLocals, vn, node);
        declareVariable(node);
      },
      assignment_expression(node) {
        assignmentNodes.push(node);
        declareAssignment(node);
      },
      invocation_expression(node) {
        invocations.push(node);
      },
      method_declaration(node) {
        const n = node.childForFieldName('name')?.text;
        if (n) methods.set(n, [...(methods.get(n) ?? []), node]);
      },
    },
    rules: [
      { on: ['method_declaration'], each: outboxMethod },
      { on: ['invocation_expression'], each: outboxCall },
      { on: ['method_declaration'], each: summariseMethod },
      { on: ['invocation_expression'], each: onInvocation },
      { on: ['object_creation_expression'], each: onCreation },
      { on: ['class_declaration', 'record_declaration'], each: onClass },
      { on: ['constructor_declaration'], each: onConstructor },
      { on: ['field_declaration'], each: onConstField },
      { on: ['interface_declaration'], each: onInterface },
      sqlStringRule(sink, file, ['string_literal', 'verbatim_string_literal', 'raw_string_literal'], (s) =>
        s.parent?.type === 'interpolated_string_expression' ? undefined : (literal(evaluate(s)) ?? ''),
      ),
    ],
  };
};

/**
 * Calls that say where an ASP.NET program listens (`listenSite`): `UseUrls`, Kestrel's `Listen*`, `Urls.Add(…)`
 * and `app.Run("http://…")` (told apart by their receiver or argument before anything is evaluated).
 */
/** Types of the framework and runtime whose methods are never a declared client's. */
const CS_FRAMEWORK_TYPES =
  /^(String|Task|ILogger|IConfiguration|IServiceCollection|IServiceProvider|HttpClient|IHttpClientFactory|IBus|IMediator|DbContext|Guid|DateTime|Uri|Console|Math|Convert|Enumerable|List|Dictionary)$/;

function listenCall(name: string, fn: Node, inv: Node): boolean {
  if (name === 'UseUrls' || name === 'ListenAnyIP' || name === 'ListenLocalhost' || name === 'Listen') return true;
  if (name !== 'Add' && name !== 'Run') return false;
  const receiver = fn.type === 'member_access_expression' ? (fn.childForFieldName('expression')?.text ?? '') : '';
  if (name === 'Add') return /(^|\.)Urls$/.test(receiver);
  return /^\(\s*\$?@?"https?:\/\//.test(inv.childForFieldName('arguments')?.text ?? '');
}

/** RabbitMQ.Client and Confluent.Kafka calls (`…Async` too): how many leading arguments name exchanges, queues, keys, topics. */
const BROKER_NAME_ARGS = new Map([
  ['BasicPublish', 2],
  ['BasicConsume', 1],
  ['QueueDeclare', 1],
  ['QueueBind', 3],
  ['ExchangeDeclare', 1],
  ['Produce', 1],
  ['Subscribe', 1],
]);
const BROKER_NAME_PARAMS = new Set(['exchange', 'routingKey', 'queue', 'topic', 'topics']);

/** A value's `Class.Name` references as marked names (`CONSTANT_MARK`) the link resolves. */
function markConstants(parts: Part[]): Part[] {
  return parts.map((p) => {
    const key = 'ref' in p ? constantKey(p.ref) : undefined;
    return key ? { lit: CONSTANT_MARK + key + CONSTANT_END } : p;
  });
}

/**
 * A reference written `Class.Name` (or qualified, `Ns.Class.Name`, `global::…`) as the key of a class constant
 * (`Class.Name`), the form `applyChannelConstants` looks up; anything else (a variable's member) is none.
 */
function constantKey(ref: string): string | undefined {
  const m = /^(?:global::)?(?:[A-Z]\w*\.)*([A-Z]\w*)\.([A-Za-z_]\w*)$/.exec(ref);
  return m ? `${m[1]!}.${m[2]!}` : undefined;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A target-typed `new(…)` among the types an expression creates: the type of what it is assigned to. */
const TARGET_TYPED = '';

/** C#: ASP.NET Core minimal APIs and attribute routing, HttpClient (typed and named), RabbitMQ.Client, Confluent.Kafka, EF Core, Mongo, StackExchange.Redis. */
export const extractCSharp = extractorOf(csharpRules);
