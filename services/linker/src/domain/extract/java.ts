import type { Node } from '../parsers';
import { type ExchangeType, type HttpMethod, type Loc, type Part, OPENAPI_CONTRACT } from '../model';
import { joinPath } from '../routes';
import {
  HOLE_PART,
  isClientModel,
  LIST_SEP,
  concat,
  exchangeType,
  httpMethod,
  lineOf,
  paramPart,
  paramWrapper,
  type Within,
  lit,
  literal,
  nameOf,
  rawName,
  settingOrDefault,
  sharedCallRules,
  sharedRuleName,
  streamDestination,
  summarisable,
  withBase,
  CTOR_REF,
  FIELD_REF,
  type FieldUse,
  fieldUseParts,
  TEMPLATE_EXCHANGE,
} from './common';
import { type LanguageRules, extractorOf, sqlStringRule } from './driver';
import { MAX_SITES_PER_FILE, type MethodSpan, summariseFromUses } from './objects';
import { JAVA_GRPC } from './grpc';

/** A file using the JAX-RS client API. */
const JAXRS_CLIENT = /\b(?:javax|jakarta)\.ws\.rs\.client\b/;
/** JAX-RS `SyncInvoker`/`AsyncInvoker` verbs. */
const JAXRS_VERBS: ReadonlySet<string> = new Set(['get', 'post', 'put', 'delete', 'head', 'options']);
/** JAX-RS resource method designators (`@GET`, …) under a class `@Path`. */
const JAXRS_METHODS: Record<string, HttpMethod> = {
  GET: 'GET',
  POST: 'POST',
  PUT: 'PUT',
  DELETE: 'DELETE',
  PATCH: 'PATCH',
  HEAD: 'HEAD',
  OPTIONS: 'OPTIONS',
};

const MAPPINGS: Record<string, HttpMethod> = {
  GetMapping: 'GET',
  PostMapping: 'POST',
  PutMapping: 'PUT',
  PatchMapping: 'PATCH',
  DeleteMapping: 'DELETE',
  RequestMapping: 'ANY',
};
/**
 * Interface-declared clients: Retrofit (`@GET("users/{id}")`, `@HTTP(method = "GET", path = …)`) and Spring
 * `@HttpExchange` interfaces (`@GetExchange("/x")`; `@HttpExchange(url = …)` on the interface as prefix).
 */
const DECLARED_CLIENT_VERBS: Record<string, HttpMethod> = {
  GET: 'GET',
  POST: 'POST',
  PUT: 'PUT',
  PATCH: 'PATCH',
  DELETE: 'DELETE',
  HEAD: 'HEAD',
  GetExchange: 'GET',
  PostExchange: 'POST',
  PutExchange: 'PUT',
  PatchExchange: 'PATCH',
  DeleteExchange: 'DELETE',
};
const REST_TEMPLATE: Record<string, HttpMethod> = {
  getForObject: 'GET',
  getForEntity: 'GET',
  postForObject: 'POST',
  postForEntity: 'POST',
  postForLocation: 'POST',
  put: 'PUT',
  patchForObject: 'PATCH',
  delete: 'DELETE',
};
/** Apache HttpClient request classes (`org.apache.http.client.methods`, `org.apache.hc.client5…classic.methods`). */
const APACHE_REQUESTS: Record<string, HttpMethod> = {
  HttpGet: 'GET',
  HttpPost: 'POST',
  HttpPut: 'PUT',
  HttpPatch: 'PATCH',
  HttpDelete: 'DELETE',
  HttpHead: 'HEAD',
  HttpOptions: 'OPTIONS',
};
const EXCHANGE_CLASSES: Record<string, ExchangeType> = {
  TopicExchange: 'topic',
  DirectExchange: 'direct',
  FanoutExchange: 'fanout',
  HeadersExchange: 'headers',
};

interface Annotation {
  readonly name: string;
  readonly node: Node;
  /** `value` holds the unnamed argument. */
  readonly values: Map<string, Node>;
}

/** Micronaut's route and declarative-client verbs (`io.micronaut.http.annotation.Get`, …). */
export const MICRONAUT_VERBS: Record<string, HttpMethod> = {
  Get: 'GET',
  Post: 'POST',
  Put: 'PUT',
  Patch: 'PATCH',
  Delete: 'DELETE',
  Head: 'HEAD',
  Options: 'OPTIONS',
};
const MICRONAUT = /\bio\.micronaut\./;

/** Spring Cloud Stream's annotation model (`@EnableBinding`): the bindings of its built-in channel interfaces. */
const BUILT_IN_BINDING = /^(?:[\w.]*\.)?(?:(?:Sink|Processor)\.(INPUT)|(?:Source|Processor)\.(OUTPUT))$/;
const BUILT_IN_CHANNELS = new Set(['Source', 'Processor']);

/**
 * A Spring AMQP declarable's name (queue, exchange, binding key): a literal, or a value of settings only
 * (`@Value("${rabbitmq.queue}")` fields and parameters), written `${key}` for the link step to resolve in the
 * source's environment (its active profile's files included).
 */
function declaredName(parts: readonly Part[] | undefined): string | undefined {
  const l = literal(parts);
  if (l !== undefined || !parts?.length) return l;
  return parts.every((p) => 'lit' in p || 'config' in p || 'env' in p) ? nameOf(parts) : undefined;
}

/** `${key:default}` placeholders (Spring `@Value`, Feign `url`). */
export function placeholder(text: string): Part[] {
  const out: Part[][] = [];
  let rest = text;
  for (;;) {
    const m = /\$\{([^}:]+)(?::([^}]*))?\}/.exec(rest);
    if (!m) break;
    out.push(lit(rest.slice(0, m.index)));
    out.push([m[2] !== undefined ? { config: m[1]!, fallback: m[2] } : { config: m[1]! }]);
    rest = rest.slice(m.index + m[0].length);
  }
  out.push(lit(rest));
  return concat(...out);
}

/**
 * Spring Boot's own `@ConfigurationProperties` classes that carry URLs, by their binding prefix:
 * `sso.getUserInfoUri()` on a `ResourceServerProperties` is `security.oauth2.resource.user-info-uri`.
 */
const SPRING_PROPERTIES_CLASSES: Record<string, string> = {
  ResourceServerProperties: 'security.oauth2.resource',
  OAuth2ClientProperties: 'security.oauth2.client',
  ClientCredentialsResourceDetails: 'security.oauth2.client',
  AuthorizationCodeResourceDetails: 'security.oauth2.client',
  ResourceOwnerPasswordResourceDetails: 'security.oauth2.client',
};

/** `getUserInfoUri` → `userInfoUri` (a bean property's name). */
const propertyOf = (getter: string): string => getter.slice(3).replace(/^./, (c) => c.toLowerCase());

const KSTREAMS_CALLS = new Set(['stream', 'table', 'globalTable', 'to', 'through']);
const kafkaStreamsFiles = new WeakMap<object, boolean>();
/** Whether the file of a node imports Kafka Streams (`to("t")` is a sink only there). */
function importsKafkaStreams(n: Node): boolean {
  const tree = n.tree as object;
  let v = kafkaStreamsFiles.get(tree);
  if (v === undefined)
    kafkaStreamsFiles.set(
      tree,
      (v = /^\s*import\s+(?:static\s+)?org\.apache\.kafka\.streams\./m.test(n.tree.rootNode.text)),
    );
  return v;
}

const argList = (n: Node | null): Node[] =>
  (n?.namedChildren ?? []).filter((x): x is Node => x !== null && x.type !== 'comment');

const javaRules: LanguageRules = ({ file, sink, scope }) => {
  const beans = new Map<string, { kind: 'queue' | 'exchange'; name: string }>();
  const clients = new Map<string, Part[]>();
  /** Declared types of fields, parameters and locals, by name (the file's; no per-method scopes). */
  const types = new Map<string, string>();
  /** Argument lists of this class's own method calls (`getMap(url, token)`, `this.getMap(…)`), by method. */
  const ownCalls = new Map<string, Node[][]>();

  /**
   * A parameter's value: a constructor's parameter is whatever `new Class(…)` passes anywhere in the
   * source (a cross-file reference); a method's, what every call of that method in the file passes
   * when they agree. A method nobody in the file calls says nothing (no part).
   */
  function parameterValue(param: Node): Part[] {
    const list = param.parent;
    const decl = list?.parent;
    if (!list || !decl) return [HOLE_PART];
    const index = argList(list)
      .filter((x) => x.type === 'formal_parameter' || x.type === 'spread_parameter')
      .findIndex((x) => x.startIndex === param.startIndex);
    const name = decl.childForFieldName('name')?.text;
    if (!name || index < 0) return [HOLE_PART];
    if (decl.type === 'constructor_declaration') return [{ ref: `new ${name}#${index}` }];
    if (decl.type !== 'method_declaration') return [HOLE_PART];
    const sites = (ownCalls.get(name) ?? []).filter(
      (a) => a.length === list.namedChildren.filter((x) => x?.type === 'formal_parameter').length,
    );
    if (sites.length === 0) return [];
    const values = sites.map((a) => evaluate(a[index]!));
    const first = JSON.stringify(values[0]);
    return values.every((v) => JSON.stringify(v) === first) ? values[0]! : [HOLE_PART];
  }

  /** The method around a node: its name and parameters (a wrapper of another class's calls). */
  function withinOf(n: Node): Within | undefined {
    const m = enclosing(n, 'method_declaration');
    const name = m?.childForFieldName('name')?.text;
    if (!m || !name) return undefined;
    const params = argList(m.childForFieldName('parameters'))
      .filter((x) => x.type === 'formal_parameter')
      .map((x) => x.childForFieldName('name')?.text ?? '');
    return { name, params, arity: params.length };
  }

  /**
   * An HTTP call; when its URL is a parameter of the method around it (`postResource(URI uri, …)` doing
   * `RequestEntity.post(uri)`), that method is a wrapper: calls of it from other classes are the call.
   */
  function httpCall(at: Node, method: HttpMethod, url: Part[], client: string, loc: { file: string; line: number }) {
    sink.call(method, url, client, loc);
    const w = paramWrapper(withinOf(at), url);
    if (w && !GENERIC_METHODS.test(w.name)) sink.wrappers.push({ ...w, method, client, loc });
  }

  /** The file's own methods by name (helpers that build a URL from their parameters). */
  const methods = new Map<string, Node[]>();

  /**
   * `getServiceUrl("ts-order-service")` with `return "http://" + serviceName;`: a method of the file called
   * with arguments is what it returns with its parameters bound to them, when every `return` says the same
   * (one method of that name and arity).
   */
  function inlineHelper(name: string, args: readonly Node[]): Part[] | undefined {
    const paramsOf = (m: Node): Node[] =>
      argList(m.childForFieldName('parameters')).filter((x) => x.type === 'formal_parameter');
    const decls = (methods.get(name) ?? []).filter((m) => paramsOf(m).length === args.length);
    if (decls.length !== 1) return undefined;
    return inlineMethod(decls[0]!, (i) => evaluate(args[i]!));
  }

  const paramsOf = (m: Node): Node[] =>
    argList(m.childForFieldName('parameters')).filter((x) => x.type === 'formal_parameter');

  /** What `m` returns with its parameter `i` bound to `value(i)`; undefined when it has no `return`. */
  function inlineMethod(m: Node, value: (i: number) => Part[]): Part[] | undefined {
    if (scope.depth > 4) return undefined;
    const body = m.childForFieldName('body');
    if (!body) return undefined;
    const returned: Node[] = [];
    const visit = (n: Node): void => {
      if (n.type === 'lambda_expression' || n.type === 'class_body') return;
      if (n.type === 'return_statement') {
        const e = n.namedChildren.find((c) => c !== null && c.type !== 'comment');
        if (e) returned.push(e);
      } else for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(body);
    if (returned.length === 0) return undefined;
    const bound = new Map<string, Part[]>();
    paramsOf(m).forEach((p, i) => {
      const pname = p.childForFieldName('name')?.text;
      if (pname) bound.set(pname, value(i));
    });
    return scope.inline(bound, returned);
  }

  /**
   * A method returning a String or URI (`static String orderUrl(String base, String id)`) summarised for its
   * callers in other classes and files, named by its classes (`Urls.orderUrl`).
   */
  function summariseMethod(m: Node): void {
    const name = m.childForFieldName('name')?.text;
    if (!name || !/^(String|URI|java\.net\.URI)$/.test(m.childForFieldName('type')?.text ?? '')) return;
    const n = paramsOf(m).length;
    const value = inlineMethod(m, (i) => [paramPart(i)]);
    if (!value || !summarisable(value)) return;
    const classes: string[] = [];
    for (let p = m.parent; p; p = p.parent)
      if (/^(class|interface|enum|record)_declaration$/.test(p.type)) {
        const c = p.childForFieldName('name')?.text;
        if (c) classes.unshift(c);
      }
    sink.returnSummaries.push({ name: [...classes, name].join('.'), params: n, required: n, value });
  }

  /** Whether an identifier names a field of its enclosing class (no local or parameter of that name). */
  function isField(id: Node): boolean {
    const cls = enclosing(id, 'class_declaration');
    return (cls?.childForFieldName('body')?.namedChildren ?? []).some(
      (m) =>
        m?.type === 'field_declaration' &&
        m.namedChildren.some((d) => d?.type === 'variable_declarator' && d.childForFieldName('name')?.text === id.text),
    );
  }

  function evaluate(node: Node): Part[] {
    switch (node.type) {
      case 'string_literal':
        return lit(node.text.startsWith('"""') ? node.text.slice(3, -3) : node.text.slice(1, -1));
      case 'binary_expression': {
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        if (l && r && node.childForFieldName('operator')?.text === '+') return concat(evaluate(l), evaluate(r));
        return [HOLE_PART];
      }
      case 'identifier':
        return (
          scope.param(node.text) ??
          scope.lookup(node.text, node) ??
          scope.lookup(`this.${node.text}`) ??
          // A field of the class written without `this.`: what the class assigns it (a constructor's parameter).
          (isField(node) ? scope.lookup(node.text) : undefined) ?? [{ ref: node.text }]
        );
      case 'field_access': {
        const field = node.childForFieldName('field')?.text ?? '';
        const obj = node.childForFieldName('object')?.text;
        if (obj === 'this') return scope.lookup(field) ?? [{ ref: field }];
        return scope.lookup(node.text) ?? scope.lookup(field) ?? [{ ref: node.text }];
      }
      case 'parenthesized_expression':
        return node.namedChild(0) ? evaluate(node.namedChild(0)!) : [HOLE_PART];
      case 'ternary_expression': {
        // System.getenv("X") == null ? "ratings" : System.getenv("X")
        const a = node.childForFieldName('consequence');
        const b = node.childForFieldName('alternative');
        return a && b ? settingOrDefault(evaluate(a), evaluate(b)) : [HOLE_PART];
      }
      case 'formal_parameter':
        return parameterValue(node);
      case 'method_invocation': {
        const name = node.childForFieldName('name')?.text;
        const obj = node.childForFieldName('object')?.text;
        // The arguments read only by the branches that use them: most calls (`items.stream().filter(…)`) are none.
        let argNodes: Node[] | undefined;
        const a = (): Node[] => (argNodes ??= argList(node.childForFieldName('arguments')));
        // props.getOrdersUrl() on a @ConfigurationProperties bean: the bound property.
        if (obj && name && /^get[A-Z]/.test(name) && a().length === 0) {
          const type = types.get(obj.replace(/^this\./, ''));
          const prefix = type ? SPRING_PROPERTIES_CLASSES[type] : undefined;
          if (prefix) return [{ config: `${prefix}.${propertyOf(name)}` }];
          if (type) return [{ ref: `${type}.${name}` }];
        }
        // `fightConfig.villain().clientBaseUrl()`: a chain of accessors of a `@ConfigMapping` interface (of any
        // file), named `FightConfig.villain.clientBaseUrl` among the source's constants (`onConfigMapping`).
        const chained = name && a.length === 0 ? accessorChain(node) : undefined;
        if (chained) return [{ ref: chained }];
        // serviceUrlConfig.location() on a @ConfigurationProperties record: its component (`onRecord`).
        if (obj && name && !/^get[A-Z]/.test(name)) {
          const type = types.get(obj.replace(/^this\./, ''));
          if (type && /^[A-Z]/.test(type) && a().length === 0) return sink.callValue(`${type}.${name}`, []);
        }
        // UriComponentsBuilder.fromUriString(base).path("/x").queryParam(…).buildAndExpand(): base + path.
        if (obj && name && /UriComponentsBuilder/.test(obj)) {
          const o = node.childForFieldName('object')!;
          if (/^from(UriString|HttpUrl|Uri)$/.test(name) && a()[0]) return evaluate(a()[0]!);
          if (name === 'path' && a()[0]) return concat(evaluate(o), evaluate(a()[0]!));
          if (/^(queryParam|queryParams|queryParamIfPresent|replaceQueryParam|build|buildAndExpand|encode)$/.test(name))
            return evaluate(o);
        }
        if (obj === 'System' && name === 'getenv' && a()[0]) return [{ env: literal(evaluate(a()[0]!)) ?? '' }];
        // A helper of the class, getenv("CART_HOST", "cart"): the variable with its default.
        if ((!obj || obj === 'this') && name && /^(get)?env(OrDefault)?$/i.test(name) && a().length === 2) {
          const key = literal(evaluate(a()[0]!));
          const fallback = literal(evaluate(a()[1]!));
          if (key !== undefined && fallback !== undefined) return [{ env: key, fallback }];
        }
        // `builder.toUri()`, `uri.toString()`: the value itself.
        if (obj && name && /^(toUri|toURI|toUrl|toURL|toString)$/.test(name) && a().length === 0) {
          const o = node.childForFieldName('object');
          if (o) return evaluate(o);
        }
        // URI.create(url), URI.create(base).resolve(path) is left computed.
        if (obj === 'URI' && name === 'create' && a()[0]) return evaluate(a()[0]!);
        if ((!obj || obj === 'this') && name && a().length > 0) {
          const own = inlineHelper(name, a());
          if (own) return own;
        }
        // `String.format(tpl, a, b)` and Java 15's `tpl.formatted(a, b)`: each conversion takes the next argument.
        const formatted = name === 'formatted' ? node.childForFieldName('object') : null;
        if ((obj === 'String' && name === 'format' && a()[0]) || formatted) {
          const tpl = literal(evaluate(formatted ?? a()[0]!));
          if (tpl === undefined) return [HOLE_PART];
          const args = formatted ? a() : a().slice(1);
          const pieces = tpl.split(/%[-+# 0-9.]*[a-zA-Z]/);
          return concat(
            ...pieces.flatMap((p, i) =>
              i < pieces.length - 1 ? [lit(p), args[i] ? evaluate(args[i]) : [HOLE_PART]] : [lit(p)],
            ),
          );
        }
        // A method of another class or file (`Urls.orderUrl(base, id)`): its return summary.
        if (name && (!obj || /^[A-Za-z_][\w.]*$/.test(obj)))
          return sink.callValue(
            obj && obj !== 'this' ? `${obj.replace(/^this\./, '')}.${name}` : name,
            a().map((x) => evaluate(x)),
          );
        return [HOLE_PART];
      }
      case 'object_creation_expression': {
        // new URI(url) / new URL(url)
        const t = node.childForFieldName('type')?.text;
        const a = argList(node.childForFieldName('arguments'));
        if ((t === 'URI' || t === 'URL' || t === 'java.net.URI') && a.length === 1) return evaluate(a[0]!);
        // A URI builder of the application (`new ServiceUri(new Hostname("payment"), domain, "/paymentAuth")`):
        // its host is computed, its literal path (the last argument) is known.
        if (t && /(Uri|Url|URI|URL)$/.test(t) && a.length >= 2) {
          const path = literal(evaluate(a[a.length - 1]!));
          if (path?.startsWith('/')) return [HOLE_PART, ...lit(path)];
        }
        return [HOLE_PART];
      }
      case 'element_value_array_initializer':
      case 'array_initializer':
        return lit(
          argList(node)
            .map((x) => nameOf(evaluate(x)) ?? '')
            .join(LIST_SEP),
        );
      default:
        return [HOLE_PART];
    }
  }

  function annotations(decl: Node): Annotation[] {
    const mods = decl.namedChildren.find((c) => c?.type === 'modifiers');
    return (mods?.namedChildren ?? [])
      .filter((c): c is Node => c?.type === 'annotation' || c?.type === 'marker_annotation')
      .map(annotation);
  }

  function annotation(node: Node): Annotation {
    const name = node.childForFieldName('name')?.text.replace(/^.*\./, '') ?? '';
    const values = new Map<string, Node>();
    for (const a of argList(node.childForFieldName('arguments'))) {
      if (a.type === 'element_value_pair') {
        const k = a.childForFieldName('key')?.text;
        const v = a.childForFieldName('value');
        if (k && v) values.set(k, v);
      } else values.set('value', a);
    }
    return { name, node, values };
  }

  const str = (a: Annotation, ...keys: string[]): string | undefined => {
    for (const k of keys) {
      const v = a.values.get(k);
      if (v) return literal(evaluate(v));
    }
    return undefined;
  };
  /** MicroProfile `@ConfigProperty(name = "x", defaultValue = "d")`: the setting as a `${x:d}` placeholder. */
  const configProperty = (anns: readonly Annotation[]): string | undefined => {
    const a = anns.find((x) => x.name === 'ConfigProperty');
    const key = a ? str(a, 'name') : undefined;
    if (!a || !key) return undefined;
    const d = str(a, 'defaultValue');
    return d === undefined ? `\${${key}}` : `\${${key}:${d}}`;
  };
  /** `Type.NAME`: a constant of another class (`RabbitMQConfig.ORDER_QUEUE`), resolved with the source's constants. */
  const classConstant = (ref: string): boolean => /^[A-Z]\w*\.[A-Z][A-Z0-9_]*$/.test(ref);
  /**
   * An annotation's queue names (one, or an array) when some is another class's constant and all are such
   * constants or literals: each one's parts, resolved after the source's files are read.
   */
  const lateQueues = (v: Node): Part[][] | undefined => {
    const items = v.type === 'element_value_array_initializer' ? argList(v) : [v];
    const parts = items.map((x) => evaluate(x));
    const late = (p: Part[]): boolean => p.length === 1 && 'ref' in p[0]! && classConstant(p[0].ref);
    if (!parts.some(late) || !parts.every((p) => late(p) || p.every((x) => 'lit' in x))) return undefined;
    return parts;
  };
  const list = (a: Annotation, ...keys: string[]): string[] => {
    for (const k of keys) {
      const v = a.values.get(k);
      if (v) return (nameOf(evaluate(v)) ?? '').split(LIST_SEP).filter((x) => x.length > 0);
    }
    return [];
  };

  /**
   * `x.a().b()` with `x` of a declared type T, two accessors or more, none with arguments: `T.a.b`, else undefined.
   */
  function accessorChain(node: Node): string | undefined {
    const names: string[] = [];
    let n: Node | null = node;
    while (n?.type === 'method_invocation' && names.length < 6) {
      if (n.childForFieldName('arguments')?.namedChildren.length) return undefined;
      names.unshift(n.childForFieldName('name')?.text ?? '');
      n = n.childForFieldName('object');
    }
    if (names.length < 2 || !n || (n.type !== 'identifier' && n.type !== 'field_access')) return undefined;
    const type = types.get(n.text.replace(/^this\./, ''));
    return type && /^[A-Z]/.test(type) ? `${type}.${names.join('.')}` : undefined;
  }

  /**
   * SmallRye `@ConfigMapping(prefix = "fight") interface FightConfig { Villain villain(); interface Villain {
   * String clientBaseUrl(); } }`: each accessor chain to a value is the setting `fight.villain.client-base-url`
   * (`@WithName` renames, `@WithDefault` is the default), kept as the source's constant `FightConfig.villain.clientBaseUrl`.
   */
  function onConfigMapping(iface: Node): void {
    const mapping = annotations(iface).find((a) => a.name === 'ConfigMapping');
    const root = iface.childForFieldName('name')?.text;
    if (!mapping || !root) return;
    const prefix = str(mapping, 'prefix') ?? '';
    const kebab = (m: string): string => m.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
    let budget = 500;
    const visit = (body: Node | null, path: string, key: string, depth: number): void => {
      const members = (body?.namedChildren ?? []).filter((x): x is Node => x !== null);
      const nested = new Map<string, Node>();
      for (const m of members)
        if (m.type === 'interface_declaration') nested.set(m.childForFieldName('name')?.text ?? '', m);
      for (const m of members) {
        if (m.type !== 'method_declaration' || budget-- <= 0) continue;
        if (m.childForFieldName('parameters')?.namedChildren.length) continue;
        const name = m.childForFieldName('name')?.text;
        if (!name) continue;
        const anns = annotations(m);
        const renamed = anns.find((a) => a.name === 'WithName');
        const part = (renamed ? str(renamed, 'value') : undefined) ?? kebab(name);
        const k = key ? `${key}.${part}` : part;
        const inner = nested.get(typeName(m) ?? '');
        if (inner && depth < 4) visit(inner.childForFieldName('body'), `${path}.${name}`, k, depth + 1);
        else {
          const d = anns.find((a) => a.name === 'WithDefault');
          const fallback = d ? str(d, 'value') : undefined;
          sink.facts.constants[`${path}.${name}`] = [fallback === undefined ? { config: k } : { config: k, fallback }];
        }
      }
    };
    visit(iface.childForFieldName('body'), root, prefix, 0);
  }

  const typeName = (n: Node | null | undefined): string | undefined =>
    n?.childForFieldName('type')?.text.replace(/<.*$/, '').replace(/^.*\./, '');

  const declarations: Record<string, (node: Node) => void> = {
    method_declaration(node) {
      const n = node.childForFieldName('name')?.text;
      if (n) methods.set(n, [...(methods.get(n) ?? []), node]);
    },
    method_invocation(node) {
      const obj = node.childForFieldName('object');
      const name = node.childForFieldName('name')?.text;
      if (!name || (obj && obj.type !== 'this')) return;
      const list = ownCalls.get(name) ?? [];
      list.push(argList(node.childForFieldName('arguments')));
      ownCalls.set(name, list);
    },
    object_creation_expression(node) {
      // new Client(url, …): the constructor's parameters, for the class's own file (cross-file constants).
      const type = typeName(node);
      const a = argList(node.childForFieldName('arguments'));
      if (type && /^[A-Z]/.test(type) && a.length > 0 && a.length <= 8 && !node.childForFieldName('body'))
        a.forEach((x, i) => scope.add(`new ${type}#${i}`, x));
    },
    variable_declarator(node) {
      const name = node.childForFieldName('name')?.text;
      const value = node.childForFieldName('value');
      const decl = node.parent;
      const type = typeName(decl);
      if (name && type) types.set(name, type);
      if (name && decl?.type === 'field_declaration') {
        const v = annotations(decl).find((a) => a.name === 'Value');
        const text = v ? str(v, 'value') : configProperty(annotations(decl));
        if (text !== undefined) scope.set(name, placeholder(text));
      }
      if (name && value) {
        scope.add(name, value, decl?.type === 'local_variable_declaration');
        classifyClient(name, value);
      } else if (name && decl?.type === 'local_variable_declaration') scope.declare(name, node);
    },
    formal_parameter(node) {
      // constructor injection: @Value("${orders.url}") String ordersUrl
      const name = node.childForFieldName('name')?.text;
      const v = annotations(node).find((a) => a.name === 'Value');
      const text = v ? str(v, 'value') : configProperty(annotations(node));
      const type = typeName(node);
      if (name && type) types.set(name, type);
      if (name && text !== undefined) scope.set(name, placeholder(text));
      else if (name) scope.add(name, node, true);
    },
    assignment_expression(node) {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (left && right) {
        const name = left.type === 'field_access' ? (left.childForFieldName('field')?.text ?? left.text) : left.text;
        // `this.url = url`: the parameter of the same name already declares what the field holds.
        if (right.type === 'identifier' && right.text === name) return;
        // `url = …` to a local: a definition of it, reaching the uses after it (`if (…) url = A; else url = B;`).
        if (left.type === 'identifier') scope.assign(name, right, true);
        else scope.add(name, right);
        classifyClient(name, right);
      }
    },
  };

  function classifyClient(name: string, value: Node): void {
    if (!/WebClient|RestClient|baseUrl|rootUri/.test(value.text)) return;
    const find = (n: Node): Part[] | undefined => {
      if (n.type === 'method_invocation') {
        const m = n.childForFieldName('name')?.text;
        const a = argList(n.childForFieldName('arguments'));
        if (
          (m === 'baseUrl' ||
            m === 'rootUri' ||
            (m === 'create' && /WebClient|RestClient/.test(n.childForFieldName('object')?.text ?? ''))) &&
          a[0]
        )
          return evaluate(a[0]);
      }
      for (const c of n.namedChildren) {
        const r = c ? find(c) : undefined;
        if (r) return r;
      }
      return undefined;
    };
    const base = find(value);
    if (base) clients.set(name, base);
  }

  // ---- Spring AMQP beans: @Bean Queue orders() { return new Queue("orders"); }
  function onCreation(c: Node): void {
    const type = c.childForFieldName('type')?.text.replace(/<.*$/, '') ?? '';
    const a = argList(c.childForFieldName('arguments'));
    const name = a[0] ? declaredName(evaluate(a[0])) : undefined;
    const loc = { file, line: lineOf(c) };
    // Apache HttpClient (4 and 5): new HttpPost(url) is the request `execute` sends.
    const apache = APACHE_REQUESTS[type.replace(/^.*\./, '')];
    if (apache && a[0]) {
      httpCall(c, apache, evaluate(a[0]), 'Apache HttpClient', loc);
      return;
    }
    if (type !== 'Queue' && type !== 'Binding' && type !== 'ProducerRecord' && !EXCHANGE_CLASSES[type]) return;
    const method = enclosing(c, 'method_declaration')?.childForFieldName('name')?.text;
    if (type === 'Queue' && name !== undefined) {
      sink.queue(name, loc);
      if (method) beans.set(method, { kind: 'queue', name });
    } else if (EXCHANGE_CLASSES[type] && name !== undefined) {
      sink.exchange(name, EXCHANGE_CLASSES[type], loc);
      if (method) beans.set(method, { kind: 'exchange', name });
    } else if (type === 'Binding' && a.length >= 4) {
      // new Binding("queue", DestinationType.QUEUE, "exchange", "key", null)
      const q = declaredName(evaluate(a[0]!));
      const ex = declaredName(evaluate(a[2]!));
      const key = declaredName(evaluate(a[3]!)) ?? '';
      if (q !== undefined && ex !== undefined) sink.binding(ex, q, key, loc);
    } else if (type === 'ProducerRecord' && name !== undefined) sink.publish('kafka', '', name, loc);
  }
  /**
   * `asyncGetService.postResource(config.getShippingUri(), body)`: a call of a method of another object,
   * kept with its arguments in case a wrapper of the source (HTTP or publish) has that name.
   */
  function site(inv: Node, name: string): void {
    const obj = inv.childForFieldName('object');
    if (!obj || obj.type === 'this' || /^(this\.)?(log|logger|LOG|LOGGER)$|^System\./.test(obj.text)) return;
    if (REST_TEMPLATE[name] || GENERIC_METHODS.test(name)) return;
    const argNodes = argList(inv.childForFieldName('arguments'));
    if (argNodes.length === 0) return;
    sink.sites.push({ name, args: argNodes.map((x) => evaluate(x)), loc: { file, line: lineOf(inv) } });
  }

  function onBeanBuilder(inv: Node): void {
    const m = inv.childForFieldName('name')?.text;
    const obj = inv.childForFieldName('object')?.text ?? '';
    if (obj !== 'QueueBuilder' && obj !== 'ExchangeBuilder') return;
    const a = argList(inv.childForFieldName('arguments'));
    if (!a[0]) return;
    const method = enclosing(inv, 'method_declaration')?.childForFieldName('name')?.text;
    if (!method) return;
    if (obj === 'QueueBuilder' && (m === 'durable' || m === 'nonDurable')) {
      const q = declaredName(evaluate(a[0]));
      if (q !== undefined) {
        sink.queue(q, { file, line: lineOf(inv) });
        beans.set(method, { kind: 'queue', name: q });
      }
    }
    if (obj === 'ExchangeBuilder' && m && /^(topic|direct|fanout|headers)Exchange$/.test(m)) {
      const x = declaredName(evaluate(a[0]));
      if (x !== undefined) {
        sink.exchange(x, exchangeType(m.replace('Exchange', ''))!, { file, line: lineOf(inv) });
        beans.set(method, { kind: 'exchange', name: x });
      }
    }
  }
  const beanName = (n: Node | undefined, kind: 'queue' | 'exchange'): string | undefined => {
    if (!n) return undefined;
    const ref = n.type === 'method_invocation' ? n.childForFieldName('name')?.text : n.text;
    const b = ref ? beans.get(ref) : undefined;
    if (b?.kind === kind) return b.name;
    // A bean parameter named after its bean method, or a literal (or `${…}` setting).
    return declaredName(evaluate(n));
  };

  /**
   * A receiver named like a RestTemplate (`rest…`) whose declaration in the file gives another type
   * (`Map<String, Object> restaurantData`, `RestaurantRepository restaurantRepository`, `var r = new HashMap<>()`):
   * its `put`/`delete` is no HTTP call. Undeclared in the file (inherited, injected elsewhere), the name decides.
   */
  const declaredTypes = new Map<string, string | undefined>();
  function notHttpClient(inv: Node, receiver: string): boolean {
    const name = receiver.replace(/^this\./, '');
    if (!/^\w+$/.test(name)) return false;
    if (!declaredTypes.has(name)) {
      const text = inv.tree.rootNode.text;
      const decl = new RegExp(
        String.raw`(?:^|[\s(,])([A-Z][\w.]*(?:\s*<[^;=(){}]*>)?|var)\s+${name}\s*(?:[;,)]|=\s*(?:new\s+([\w.]+))?)`,
        'm',
      ).exec(text);
      declaredTypes.set(name, decl ? (decl[1] === 'var' ? decl[2] : decl[1]) : undefined);
    }
    const type = declaredTypes.get(name);
    return type !== undefined && !/Rest(Template|Operations|Client)|WebClient|HttpClient/.test(type);
  }

  // ---- invocations: bindings, RestTemplate, WebClient, shared rules
  /**
   * Spring Cloud Stream's functional bindings: a `@Bean` `Consumer<T>` / `Function<A, B>` / `Supplier<T>`
   * named `f` consumes binding `f-in-0` and publishes `f-out-0`, whose topic is
   * `spring.cloud.stream.bindings.<binding>.destination` (the binding name by default).
   */
  function streamFunction(member: Node): void {
    if (!annotations(member).some((a) => a.name === 'Bean')) return;
    const kind = /^(?:java\.util\.function\.)?(Consumer|Function|Supplier)\s*</.exec(
      member.childForFieldName('type')?.text ?? '',
    )?.[1];
    const name = member.childForFieldName('name')?.text;
    if (!kind || !name) return;
    const loc = { file, line: lineOf(member) };
    if (kind !== 'Supplier') sink.consume('kafka', streamDestination(`${name}-in-0`), loc, true);
    if (kind !== 'Consumer') sink.publish('kafka', '', streamDestination(`${name}-out-0`), loc, true);
  }

  /** A binding named by an annotation value: `Sink.INPUT` / `Source.OUTPUT` / `Processor.*`, or any string value. */
  function bindingParts(node: Node): Part[] {
    const m = BUILT_IN_BINDING.exec(node.text.replace(/\s+/g, ''));
    return m ? lit(m[1] ? 'input' : 'output') : evaluate(node);
  }

  /** A publish or consume on a Spring Cloud Stream binding; a name of another file resolves once the source is read. */
  function onBinding(side: 'publish' | 'consume', parts: Part[], loc: Loc): void {
    const name = literal(parts);
    if (name === undefined) sink.topicRefs.push({ side, parts, loc, binding: true });
    else if (side === 'publish') sink.publish('kafka', '', streamDestination(name), loc, true);
    else sink.consume('kafka', streamDestination(name), loc, true);
  }

  /**
   * Spring Cloud Stream's annotation model (`@EnableBinding`, before 4.0): `@StreamListener(binding)` consumes,
   * `@SendTo` / `@Output` on such a method and `@InboundChannelAdapter(binding)` publish; a channel interface's
   * `@Output("b") MessageChannel m()` / `@Input` names binding b (the method's name by default), kept as the
   * source constant `Interface.m()` for `channels.m().send(…)` in other files. Spring Kafka and Spring AMQP
   * listeners' `@SendTo` publish their reply: a Kafka topic, or `exchange/routingKey` (the default exchange
   * without a `/`).
   */
  function legacyStream(member: Node, iface: string | undefined): void {
    const anns = annotations(member);
    const name = member.childForFieldName('name')?.text;
    const listener = anns.find((a) => a.name === 'StreamListener');
    for (const a of anns) {
      const loc = { file, line: lineOf(a.node) };
      const v = a.values.get(a.name === 'StreamListener' ? 'target' : 'value') ?? a.values.get('value');
      if (iface && name && (a.name === 'Output' || a.name === 'Input'))
        sink.facts.constants[`${iface}.${name}()`] = v ? bindingParts(v) : lit(name);
      else if (a.name === 'StreamListener' && v) onBinding('consume', bindingParts(v), loc);
      else if ((a.name === 'SendTo' || a.name === 'Output') && listener && v)
        onBinding('publish', bindingParts(v), loc);
      else if (a.name === 'InboundChannelAdapter') {
        const c = a.values.get('value') ?? a.values.get('channel');
        if (c) onBinding('publish', bindingParts(c), loc);
      } else if (a.name === 'SendTo' && v) {
        const to = literal(evaluate(v));
        if (to === undefined || to.includes('${') || to.startsWith('#{') || to.startsWith('!{')) continue;
        if (anns.some((x) => x.name === 'KafkaListener')) sink.publish('kafka', '', to, loc);
        else if (anns.some((x) => x.name === 'RabbitListener')) {
          const slash = to.indexOf('/');
          sink.publish('rabbitmq', slash < 0 ? '' : to.slice(0, slash), slash < 0 ? to : to.slice(slash + 1), loc);
        }
      }
    }
  }

  /**
   * `template.sendDefault(…)` on a `KafkaTemplate`: the topic the file gives it (`setDefaultTopic("t")`), else
   * `spring.kafka.template.default-topic` of the configuration.
   */
  function kafkaSendDefault(inv: Node): void {
    const holder = inv.childForFieldName('object')?.text.replace(/^this\./, '') ?? '';
    if (!/Kafka\w*Template$/.test(types.get(holder) ?? '')) return;
    let set: string | undefined;
    const visit = (n: Node): void => {
      if (n.type === 'method_invocation' && n.childForFieldName('name')?.text === 'setDefaultTopic') {
        const a = argList(n.childForFieldName('arguments'))[0];
        set ??= a ? nameOf(evaluate(a)) : undefined;
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(inv.tree.rootNode);
    const topic = set ?? '${spring.kafka.template.default-topic}';
    if (!topic.includes('{}')) sink.publish('kafka', '', topic, { file, line: lineOf(inv) });
  }

  /**
   * `source.output().send(msg)` on an injected `Source` / `Processor` publishes binding `output`;
   * `channels.orders().send(msg)` on a channel interface, the binding its `@Output` names.
   */
  function channelSend(inv: Node): void {
    const channel = inv.childForFieldName('object');
    if (channel?.type !== 'method_invocation' || argList(channel.childForFieldName('arguments')).length) return;
    const method = channel.childForFieldName('name')?.text;
    const type = types.get(channel.childForFieldName('object')?.text.replace(/^this\./, '') ?? '');
    if (!method || !type) return;
    const loc = { file, line: lineOf(inv) };
    if (BUILT_IN_CHANNELS.has(type)) {
      if (method === 'output') onBinding('publish', lit('output'), loc);
    } else sink.topicRefs.push({ side: 'publish', parts: [{ ref: `${type}.${method}()` }], loc, binding: true });
  }

  /**
   * Kafka Streams, in a file that imports it: `builder.stream("t")` / `table` / `globalTable` on a
   * `StreamsBuilder` read topic t; `kstream.to("t")` / `through("t")` at the end of any chain write it.
   */
  function kafkaStreams(inv: Node, name: string): void {
    if (!importsKafkaStreams(inv)) return;
    const first = argList(inv.childForFieldName('arguments'))[0];
    const topic = first ? nameOf(evaluate(first)) : undefined;
    // A `TopicNameExtractor` (a lambda) or a collection of topics: not one name.
    if (topic === undefined || topic === '' || topic.includes('{}')) return;
    // The line of the call's name: a chain (`stream.join(…)\n.peek(…)\n.to("t")`) starts lines earlier.
    const loc = { file, line: lineOf(inv.childForFieldName('name') ?? inv) };
    if (name === 'to' || name === 'through') sink.publish('kafka', '', topic, loc);
    else if (types.get(inv.childForFieldName('object')?.text.replace(/^this\./, '') ?? '') === 'StreamsBuilder')
      sink.consume('kafka', topic, loc);
  }

  /**
   * `retrofit.create(OrdersApi.class)` / `factory.createClient(OrdersApi.class)`: the interface's base address
   * is the one `baseUrl(…)` the method building the client sets (Retrofit.Builder, WebClient/RestClient builders).
   */
  function declaredClientBase(inv: Node, name: string): void {
    if (name !== 'create' && name !== 'createClient') return;
    const arg = argList(inv.childForFieldName('arguments'))[0];
    const cls = arg?.type === 'class_literal' ? arg.namedChild(0)?.text : undefined;
    if (!cls || cls === '__proto__') return;
    let body: Node | null = inv.parent;
    while (body && body.type !== 'method_declaration' && body.type !== 'constructor_declaration') body = body.parent;
    const bases: Node[] = [];
    const visit = (n: Node): void => {
      if (n.type === 'method_invocation' && n.childForFieldName('name')?.text === 'baseUrl') {
        const a = argList(n.childForFieldName('arguments'))[0];
        if (a) bases.push(a);
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    if (body) visit(body);
    if (bases.length === 1) sink.facts.clientBases[cls] = evaluate(bases[0]!);
  }

  /**
   * `fraudClient.isFraudster(id)` on a field, constructor parameter or local typed by a class of the
   * application (`private final FraudClient fraudClient`, `@Autowired`, Lombok's generated constructors):
   * recorded for declared clients (`declared-clients.ts`), whose calls are made there.
   */
  function typedInvocation(inv: Node, name: string): void {
    const obj = inv.childForFieldName('object');
    if (!obj || !name) return;
    const receiver =
      obj.type === 'identifier'
        ? obj.text
        : obj.type === 'field_access' && obj.childForFieldName('object')?.type === 'this'
          ? obj.childForFieldName('field')?.text
          : undefined;
    const type = receiver ? types.get(receiver) : undefined;
    if (!type || !/^[A-Z]\w*$/.test(type) || JDK_TYPES.has(type)) return;
    (sink.facts.typedInvocations ??= []).push({ type, method: name, loc: { file, line: lineOf(inv) } });
  }

  /** The file uses the JAX-RS client API (read once, at its first `target(…)`). */
  let jaxrsFile: boolean | undefined;

  /**
   * A JAX-RS `WebTarget` from `start` (`client.target(url)` or a use of a variable or field holding one): the
   * `.path(x)` segments of its chain up to a verb are a call at the verb's line; a chain stored in a local or a
   * field is followed to the chains that use it (the method's, or the class's for a field), to depth 3.
   * Whether a segment or a holder was met (else the plain `jaxrsVerbs` reading applies).
   */
  function jaxrsTargets(start: Node, base: Part[], depth: number): boolean {
    let url = base;
    let n = start;
    let segments = false;
    for (;;) {
      const p = n.parent;
      if (p?.type !== 'method_invocation' || p.childForFieldName('object')?.id !== n.id) break;
      const called = p.childForFieldName('name');
      const verb = JAXRS_VERBS.has(called?.text ?? '') ? httpMethod(called!.text) : undefined;
      if (verb) {
        if (!segments && depth === 0) return false;
        httpCall(p, verb, url, 'JAX-RS', { file, line: lineOf(called!) });
        return true;
      }
      const a = argList(p.childForFieldName('arguments'));
      if (called?.text === 'path' && a.length === 1) {
        url = joinSegment(url, evaluate(a[0]!));
        segments = true;
      }
      n = p;
    }
    if (depth >= 3) return segments;
    // Held in a local (`var t = …`) or a field (`this.t = …`, `private final WebTarget t = …`).
    const parent = n.parent;
    let holder: string | undefined;
    let field = false;
    if (parent?.type === 'variable_declarator') {
      holder = parent.childForFieldName('name')?.text;
      field = parent.parent?.type === 'field_declaration';
    } else if (parent?.type === 'assignment_expression' && parent.childForFieldName('right')?.id === n.id) {
      const left = parent.childForFieldName('left');
      field = left?.type === 'field_access';
      holder = field ? left?.childForFieldName('field')?.text : left?.text;
      // `heroes = client.target(…)` in a method: the class's field of that name, when it declares one.
      if (!field && holder)
        field = (enclosing(n, 'class_body')?.namedChildren ?? []).some(
          (m) =>
            m?.type === 'field_declaration' &&
            m.namedChildren.some(
              (d) => d?.type === 'variable_declarator' && d.childForFieldName('name')?.text === holder,
            ),
        );
    }
    if (!holder || (!segments && depth === 0 && !field)) return segments;
    const scopeNode = field ? enclosing(n, 'class_body') : enclosing(n, 'block');
    if (!scopeNode) return segments;
    let found = false;
    for (const use of scopeNode.descendantsOfType('method_invocation')) {
      const obj = use?.childForFieldName('object');
      if (!obj || (obj.text !== holder && obj.text !== `this.${holder}`)) continue;
      if (jaxrsTargets(obj, url, depth + 1)) found = true;
    }
    return found || segments;
  }

  /**
   * The HTTP verbs a JAX-RS `WebTarget` is invoked with: the chain's `get()`/`post(…)`…, followed through
   * the local variables that hold the target or its `Invocation.Builder` (`builder = t.request(); builder.get()`).
   */
  function jaxrsVerbs(start: Node, depth: number): HttpMethod[] {
    let n = start;
    for (;;) {
      const p = n.parent;
      if (p?.type !== 'method_invocation' || p.childForFieldName('object')?.id !== n.id) break;
      const called = p.childForFieldName('name')?.text ?? '';
      if (JAXRS_VERBS.has(called)) return [httpMethod(called)!];
      n = p;
    }
    const holder = n.parent?.type === 'variable_declarator' ? n.parent.childForFieldName('name')?.text : undefined;
    let body: Node | null = n.parent;
    while (body && body.type !== 'method_declaration' && body.type !== 'constructor_declaration') body = body.parent;
    if (!holder || !body || depth > 3) return [];
    const out: HttpMethod[] = [];
    const visit = (x: Node): void => {
      if (x.type === 'method_invocation' && x.childForFieldName('object')?.text === holder) {
        const called = x.childForFieldName('name')?.text ?? '';
        if (JAXRS_VERBS.has(called)) out.push(httpMethod(called)!);
        else out.push(...jaxrsVerbs(x, depth + 1));
      }
      for (const c of x.namedChildren) if (c) visit(c);
    };
    visit(body);
    return out;
  }

  /**
   * Where object summaries are instantiated (ADR 0062): `new OrdersClient(url)` and `client.get(id)` with the
   * receiver's declared type (a field injected by type holds the instance a `@Bean` method created).
   */
  function objSite(n: Node, name: string, isNew: boolean): void {
    const list = (sink.facts.objSites ??= []);
    if (list.length >= MAX_SITES_PER_FILE || !/^[A-Za-z_]/.test(name)) return;
    if (isNew && (!/^[A-Z]/.test(name) || n.childForFieldName('body'))) return;
    const obj = isNew ? undefined : n.childForFieldName('object');
    if (!isNew && (!obj || obj.type === 'this')) return;
    const receiver = obj?.text.replace(/^this\./, '');
    const receiverType = receiver ? types.get(receiver) : undefined;
    if (!isNew && !receiverType) return;
    // The name the object goes by: a `@Bean` method's (`return new C(…)`), a variable's or a field's.
    const parent = n.parent;
    const assigned = !isNew
      ? undefined
      : parent?.type === 'return_statement'
        ? enclosing(n, 'method_declaration')?.childForFieldName('name')?.text
        : parent?.type === 'variable_declarator'
          ? parent.childForFieldName('name')?.text
          : parent?.type === 'assignment_expression'
            ? parent.childForFieldName('left')?.text.replace(/^this\./, '')
            : undefined;
    list.push({
      name,
      ...(isNew ? { isNew } : {}),
      args: argList(n.childForFieldName('arguments')).map((x) => evaluate(x)),
      ...(receiverType ? { receiverType, receiver: receiver! } : {}),
      ...(assigned ? { assigned } : {}),
      loc: { file, line: lineOf(n) },
    });
  }

  /**
   * A class whose methods call or publish with what its constructor was given (`new C#i`, read where the
   * object is created): summarised with the constructor's arguments as its fields, run at each creation.
   */
  function summariseClass(cls: Node): void {
    const name = cls.childForFieldName('name')?.text;
    const body = cls.childForFieldName('body');
    if (!name || !body) return;
    const start = lineOf(cls);
    const end = cls.endPosition.row + 1;
    const mine = (p: Part): boolean => 'ref' in p && CTOR_REF.exec(p.ref)?.[1] === name;
    const asField = (v: readonly Part[]): Part[] =>
      v.map((p) => (mine(p) ? { ref: `${FIELD_REF}#${CTOR_REF.exec((p as { ref: string }).ref)![2]}` } : p));
    const uses: FieldUse[] = sink.fieldUses
      .filter((u) => u.loc.file === file && u.loc.line >= start && u.loc.line <= end)
      .filter((u) => fieldUseParts(u).some(mine))
      .map((u) =>
        u.kind === 'http'
          ? { ...u, url: asField(u.url) }
          : u.kind === 'consume'
            ? { ...u, queue: asField(u.queue) }
            : { ...u, exchange: asField(u.exchange), key: asField(u.key) },
      );
    if (uses.length === 0) return;
    const arity = Math.max(
      0,
      ...argList(body)
        .filter((m) => m.type === 'constructor_declaration')
        .map((m) => argList(m.childForFieldName('parameters')).filter((x) => x.type === 'formal_parameter').length),
    );
    const params = Array.from({ length: arity }, (_, i) => `#${i}`);
    const methods: MethodSpan[] = argList(body)
      .filter((m) => m.type === 'method_declaration')
      .map((m) => ({
        name: m.childForFieldName('name')?.text ?? '',
        params: argList(m.childForFieldName('parameters'))
          .filter((x) => x.type === 'formal_parameter')
          .map((x) => x.childForFieldName('name')?.text ?? ''),
        start: lineOf(m),
        end: m.endPosition.row + 1,
      }));
    const summary = summariseFromUses(
      name,
      file,
      { params, sets: params.map((p) => [p, [{ ref: p }]]) },
      methods,
      uses,
    );
    if (summary) (sink.facts.objClasses ??= []).push(summary);
  }

  function onInvocation(inv: Node): void {
    const name = inv.childForFieldName('name')?.text ?? '';
    typedInvocation(inv, name);
    site(inv, name);
    objSite(inv, name, false);
    declaredClientBase(inv, name);
    // A `RepositoryRestConfigurer`'s `config.setBasePath("/api")`: Spring Data REST's prefix, as its property.
    if (name === 'setBasePath' && withinDataRestConfiguration(inv)) {
      const first = argList(inv.childForFieldName('arguments'))[0];
      const base = first ? literal(evaluate(first)) : undefined;
      if (base !== undefined)
        sink.facts.config.push({ key: 'spring.data.rest.base-path', value: base, loc: { file, line: lineOf(inv) } });
    }
    // `rabbitTemplate.setExchange("orders")` on a RabbitTemplate (a `@Bean` building it): the exchange its
    // two-argument `convertAndSend(key, msg)` uses, as Spring Boot's property says it.
    if (name === 'setExchange') {
      const holder = inv.childForFieldName('object')?.text.replace(/^this\./, '') ?? '';
      const first = argList(inv.childForFieldName('arguments'))[0];
      const exchange = first ? nameOf(evaluate(first)) : undefined;
      if (/^(Rabbit|Amqp)Template$/.test(types.get(holder) ?? '') && exchange !== undefined && !exchange.includes('{}'))
        sink.facts.config.push({ key: TEMPLATE_EXCHANGE, value: exchange, loc: { file, line: lineOf(inv) } });
    }
    if (KSTREAMS_CALLS.has(name)) kafkaStreams(inv, name);
    if (name === 'send') channelSend(inv);
    if (name === 'sendDefault') kafkaSendDefault(inv);
    // StreamBridge.send("orders-out-0" | "orders", payload): a binding, or a destination of that name.
    if (name === 'send' && /bridge/i.test(inv.childForFieldName('object')?.text ?? '')) {
      const first = argList(inv.childForFieldName('arguments'))[0];
      const binding = first ? literal(evaluate(first)) : undefined;
      if (binding) sink.publish('kafka', '', streamDestination(binding), { file, line: lineOf(inv) }, true);
    }
    if (
      !REST_TEMPLATE[name] &&
      name !== 'bind' &&
      name !== 'exchange' &&
      name !== 'uri' &&
      name !== 'newBuilder' &&
      name !== 'target' &&
      !sharedRuleName(name)
    )
      return;
    const objNode = inv.childForFieldName('object');
    const receiver = objNode?.text ?? '';
    const argNodes = argList(inv.childForFieldName('arguments'));
    const args = argNodes.map((x) => evaluate(x));
    const loc = { file, line: lineOf(inv) };
    const receiverType = types.get(receiver.replace(/^this\./, ''));
    sharedCallRules(
      { name, receiver, receiverType, args, named: new Map(), loc, within: withinOf(inv), lateRef: classConstant },
      sink,
    );

    if (name === 'bind' && receiver === 'BindingBuilder') {
      const q = beanName(argNodes[0], 'queue');
      const to =
        inv.parent?.type === 'method_invocation' && inv.parent.childForFieldName('name')?.text === 'to'
          ? inv.parent
          : undefined;
      const ex = to ? beanName(argList(to.childForFieldName('arguments'))[0], 'exchange') : undefined;
      const withInv =
        to?.parent?.type === 'method_invocation' && to.parent.childForFieldName('name')?.text === 'with'
          ? to.parent
          : undefined;
      const key = withInv ? (declaredName(evaluate(argList(withInv.childForFieldName('arguments'))[0]!)) ?? '') : '';
      if (q !== undefined && ex !== undefined) sink.binding(ex, q, key, loc);
      return;
    }
    // JAX-RS client: client.target(url)….request(…).get(), in one chain or through the variables it is held in.
    if (
      name === 'target' &&
      args[0] &&
      argNodes.length === 1 &&
      (jaxrsFile ??= JAXRS_CLIENT.test(inv.tree.rootNode.text))
    ) {
      // `.path(…)` segments and a target held in a field (`this.villains = client.target(base).path("api/villains")`,
      // then `this.villains.path("random").request().get()` in another method): one call per verb site.
      if (jaxrsTargets(inv, args[0], 0)) return;
      const verbs = [...new Set(jaxrsVerbs(inv, 0))];
      if (verbs.length === 1) httpCall(inv, verbs[0]!, args[0], 'JAX-RS', loc);
      return;
    }
    if (REST_TEMPLATE[name] && /rest/i.test(receiver) && args[0] && !notHttpClient(inv, receiver)) {
      httpCall(inv, REST_TEMPLATE[name], withBase(clients.get(receiver), args[0]), 'RestTemplate', loc);
      return;
    }
    // exchange(request, Type.class): the method and URL of the RequestEntity, built here or in a variable.
    const request =
      name === 'exchange' && /rest/i.test(receiver) && argNodes[0] && !notHttpClient(inv, receiver)
        ? requestEntity(argNodes[0], inv)
        : undefined;
    if (request) {
      httpCall(inv, request.method, withBase(clients.get(receiver), request.url), 'RestTemplate', loc);
      return;
    }
    // java.net.http: HttpRequest.newBuilder(uri) / newBuilder().uri(uri), then .GET() / .POST(…) / .method("X", …).
    if (name === 'newBuilder' && receiver === 'HttpRequest') {
      let url = argNodes[0] ? evaluate(argNodes[0]) : undefined;
      let method: HttpMethod = 'GET';
      for (
        let n: Node = inv;
        n.parent?.type === 'method_invocation' && n.parent.childForFieldName('object')?.id === n.id;
      ) {
        n = n.parent;
        const m = n.childForFieldName('name')?.text ?? '';
        const a = argList(n.childForFieldName('arguments'));
        if (m === 'uri' && a[0]) url = evaluate(a[0]);
        else if (m === 'method' && a[0]) method = httpMethod(literal(evaluate(a[0]))) ?? method;
        else if (/^[A-Z]+$/.test(m)) method = httpMethod(m) ?? method;
      }
      if (url) httpCall(inv, method, url, 'HttpClient', loc);
      return;
    }
    if (name === 'exchange' && /rest/i.test(receiver) && args[0] && argNodes[1] && !notHttpClient(inv, receiver)) {
      httpCall(
        inv,
        httpMethod(argNodes[1].text.replace(/^HttpMethod\./, '')) ?? 'GET',
        withBase(clients.get(receiver), args[0]),
        'RestTemplate',
        loc,
      );
      return;
    }
    // webClient.get().uri("/x") / restClient.post().uri(...)
    if (name === 'uri' && objNode?.type === 'method_invocation' && args[0] && gatewayRoute(objNode, args[0], loc))
      return;
    if (name === 'uri' && objNode?.type === 'method_invocation' && args[0]) {
      const verb = objNode.childForFieldName('name')?.text;
      const client = objNode.childForFieldName('object')?.text ?? '';
      const method =
        verb === 'method'
          ? httpMethod(argList(objNode.childForFieldName('arguments'))[0]?.text.replace(/^HttpMethod\./, ''))
          : httpMethod(verb);
      if (method)
        httpCall(
          inv,
          method,
          withBase(clients.get(client) ?? clients.get(client.replace(/^this\./, '')), args[0]),
          /rest/i.test(client) ? 'RestClient' : 'WebClient',
          loc,
        );
    }
  }

  /**
   * A `RequestEntity`'s method and URL: `RequestEntity.post(uri)…body(x)`, `RequestEntity.method(HttpMethod.PUT, uri)`,
   * `new RequestEntity<>(body, HttpMethod.POST, uri)`, or a variable holding one of them.
   */
  function requestEntity(n: Node, from: Node, depth = 0): { method: HttpMethod; url: Part[] } | undefined {
    if (depth > 8) return undefined;
    if (n.type === 'identifier') {
      const decl = scope.node(n.text, from);
      return decl ? requestEntity(decl, from, depth + 1) : undefined;
    }
    if (n.type === 'method_invocation') {
      const obj = n.childForFieldName('object');
      const m = n.childForFieldName('name')?.text ?? '';
      const a = argList(n.childForFieldName('arguments'));
      if (obj?.text === 'RequestEntity') {
        const method = m === 'method' ? httpMethod(a[0]?.text.replace(/^HttpMethod\./, '')) : httpMethod(m);
        const uri = m === 'method' ? a[1] : a[0];
        return method && uri ? { method, url: evaluate(uri) } : undefined;
      }
      return obj ? requestEntity(obj, from, depth + 1) : undefined;
    }
    if (n.type === 'object_creation_expression' && /^RequestEntity\b/.test(n.childForFieldName('type')?.text ?? '')) {
      const a = argList(n.childForFieldName('arguments'));
      const i = a.findIndex((x) => /^HttpMethod\.[A-Z]+$/.test(x.text));
      const method = i >= 0 ? httpMethod(a[i]!.text.replace(/^HttpMethod\./, '')) : undefined;
      const uri = i >= 0 ? a.slice(i + 1).find((x) => x.type !== 'class_literal') : undefined;
      return method && uri ? { method, url: evaluate(uri) } : undefined;
    }
    return undefined;
  }

  /**
   * Spring Cloud Gateway's Java DSL, `r.path("/api/x/**").filters(f -> f.stripPrefix(2)).uri("lb://x")`:
   * written down as the configuration keys the same route has in YAML, so one reader handles both.
   */
  let gatewayRoutes = 0;
  function gatewayRoute(chain: Node, uri: Part[], loc: { file: string; line: number }): boolean {
    const paths: string[] = [];
    let strip: string | undefined;
    let prefixPath: string | undefined;
    const visit = (n: Node): void => {
      if (n.type === 'method_invocation') {
        const m = n.childForFieldName('name')?.text;
        const a = argList(n.childForFieldName('arguments')).map((x) => literal(evaluate(x)));
        if (m === 'path') paths.push(...a.filter((x): x is string => x !== undefined));
        if (m === 'stripPrefix' && a[0] === undefined) {
          const t = argList(n.childForFieldName('arguments'))[0]?.text;
          if (t && /^\d+$/.test(t)) strip = t;
        }
        if (m === 'prefixPath' && a[0] !== undefined) prefixPath = a[0];
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(chain);
    const target = literal(uri);
    if (paths.length === 0 || target === undefined) return false;
    const key = `spring.cloud.gateway.routes.${gatewayRoutes++}`;
    const entry = (k: string, value: string): void => {
      sink.facts.config.push({ key: `${key}.${k}`, value, loc });
    };
    entry('uri', target);
    entry('predicates.0', `Path=${paths.join(',')}`);
    if (strip) entry('filters.0', `StripPrefix=${strip}`);
    if (prefixPath) entry('filters.1', `PrefixPath=${prefixPath}`);
    return true;
  }

  // ---- classes: Spring MVC controllers, Feign clients, listeners, entities
  /**
   * `@ConfigurationProperties(prefix = "yas.services") record ServiceUrlConfig(String location)`: the accessor
   * `location()` anywhere in the source is the property `yas.services.location` (a return summary).
   */
  function onRecord(rec: Node): void {
    const props = annotations(rec).find((a) => a.name === 'ConfigurationProperties');
    const prefix = props ? str(props, 'prefix', 'value') : undefined;
    const name = rec.childForFieldName('name')?.text;
    if (prefix === undefined || !name) return;
    for (const c of argList(rec.childForFieldName('parameters'))) {
      const field = c.childForFieldName('name')?.text;
      if (field)
        sink.returnSummaries.push({
          name: `${name}.${field}`,
          params: 0,
          required: 0,
          value: [{ config: prefix ? `${prefix}.${field}` : field }],
        });
    }
  }

  function onClass(cls: Node): void {
    const anns = annotations(cls);
    const has = (n: string): Annotation | undefined => anns.find((a) => a.name === n);
    const body = cls.childForFieldName('body');
    const classMapping = has('RequestMapping');
    const prefix = classMapping ? (str(classMapping, 'value', 'path') ?? '') : '';
    const feign = has('FeignClient');
    // Spring Data REST: @RepositoryRestController / @BasePathAwareController classes map routes like @Controller.
    const controller =
      has('RestController') ?? has('Controller') ?? has('RepositoryRestController') ?? has('BasePathAwareController');
    const entity = has('Entity');
    const table = has('Table');
    if (entity && !isClientModel(file)) {
      const tableName = table ? str(table, 'name', 'value') : undefined;
      const entityName = str(entity, 'name', 'value');
      const cname = cls.childForFieldName('name')?.text ?? '';
      // The table is @Table's name, else the entity's name (JPA's default); JPQL queries name the entity.
      const real = tableName ?? entityName ?? cname;
      sink.data('table', real, { file, line: lineOf(entity.node) });
      for (const n of [cname, entityName])
        if (n && n.toLowerCase() !== real.toLowerCase()) sink.entityTables.set(n.toLowerCase(), real.toLowerCase());
    }
    // @ConfigurationProperties(prefix = "clients") class Props { String visitsUrl; }: props.getVisitsUrl()
    // anywhere in the source is the property `clients.visits-url`.
    const props = has('ConfigurationProperties');
    const propsPrefix = props ? str(props, 'prefix', 'value') : undefined;
    const className = cls.childForFieldName('name')?.text;
    // A getter without parameters returning one expression is summarised: `config.getPaymentUri()` in another
    // file is that value (`Type.getX` references resolve across the source's files).
    if (className)
      for (const member of body?.namedChildren ?? []) {
        if (member?.type !== 'method_declaration') continue;
        const name = member.childForFieldName('name')?.text;
        const params = member.childForFieldName('parameters')?.namedChildren.length ?? 0;
        const stmts =
          member
            .childForFieldName('body')
            ?.namedChildren.filter((x) => x && x.type !== 'line_comment' && x.type !== 'block_comment') ?? [];
        const ret = stmts.length === 1 && stmts[0]?.type === 'return_statement' ? stmts[0].namedChild(0) : null;
        if (!name || params > 0 || !ret || !/^get[A-Z]/.test(name)) continue;
        const v = evaluate(ret);
        if (v.some((p) => 'lit' in p && p.lit.length > 1)) scope.set(`${className}.${name}`, v);
      }
    if (propsPrefix && className)
      for (const member of body?.namedChildren ?? []) {
        if (member?.type !== 'field_declaration') continue;
        for (const d of member.namedChildren) {
          const field = d?.type === 'variable_declarator' ? d.childForFieldName('name')?.text : undefined;
          if (field)
            scope.set(`${className}.get${field.replace(/^./, (c) => c.toUpperCase())}`, [
              { config: `${propsPrefix}.${field}` },
            ]);
        }
      }
    const doc = has('Document');
    if (doc && !isClientModel(file))
      sink.data(
        'collection',
        str(doc, 'collection', 'value') ??
          (cls.childForFieldName('name')?.text ?? '').replace(/^./, (c) => c.toLowerCase()),
        { file, line: lineOf(doc.node) },
      );

    const dataRest = has('RepositoryRestResource');
    if (cls.type === 'interface_declaration' && (dataRest || !anns.some((a) => a.name === 'NoRepositoryBean')))
      repositoryResources(cls, dataRest);

    const restClient = cls.type === 'interface_declaration' ? has('RegisterRestClient') : undefined;
    if (restClient && className) microProfileClient(cls, restClient, has('Path'), className, body);
    const exchange = cls.type === 'interface_declaration' ? has('HttpExchange') : undefined;
    const exchangePrefix = exchange ? (str(exchange, 'url', 'value') ?? '') : '';
    // JAX-RS (Jakarta EE, Quarkus, Dropwizard, Open Liberty): a class @Path and @GET/@POST… methods with their own @Path.
    const resource = cls.type === 'class_declaration' ? has('Path') : undefined;
    if (resource)
      for (const m of jaxrsMethods(body, str(resource, 'value') ?? ''))
        sink.endpoint(m.verb, m.path, 'jax-rs', { file, line: lineOf(m.annotation.node) });
    for (const member of body?.namedChildren ?? []) {
      if (member?.type !== 'method_declaration') continue;
      streamFunction(member);
      legacyStream(member, cls.type === 'interface_declaration' ? className : undefined);
      const methodName = member.childForFieldName('name')?.text;
      for (const a of annotations(member)) {
        const loc = { file, line: lineOf(a.node) };
        if (cls.type === 'interface_declaration' && className && !feign) {
          const verb =
            DECLARED_CLIENT_VERBS[a.name] ??
            (a.name === 'HTTP' || a.name === 'HttpExchange' ? httpMethod(str(a, 'method') ?? '') : undefined);
          const path = a.name === 'HTTP' ? str(a, 'path') : str(a, 'value', 'url');
          if (verb && path !== undefined) {
            const full = exchange ? placeholder(joinPath(exchangePrefix, path)) : placeholder(path);
            sink.call(verb, full, exchange ? 'HttpExchange' : 'Retrofit', loc, {
              clientClass: className,
              ...(methodName ? { clientMethod: methodName } : {}),
            });
          }
        }
        const mapped = MAPPINGS[a.name];
        if (mapped && (controller || feign || classMapping)) {
          let method = mapped;
          if (a.name === 'RequestMapping') {
            const m = a.values.get('method');
            method = m ? (httpMethod(m.text.replace(/^.*\./, '').replace(/[{}\s]/g, '')) ?? 'ANY') : 'ANY';
          }
          const paths = list(a, 'value', 'path');
          for (const p of paths.length ? paths : ['']) {
            const path = joinPath(prefix, p);
            if (feign) {
              const url = str(feign, 'url');
              const service = str(feign, 'name', 'value');
              const base = url !== undefined ? placeholder(url) : [];
              // @FeignClient(path = "/api/orders"): a prefix of every method's path.
              const feignPath = str(feign, 'path');
              const full = feignPath ? placeholder(joinPath(feignPath, path)) : lit(path);
              sink.call(method === 'ANY' ? 'GET' : method, base.length ? concat(base, full) : full, 'Feign', loc, {
                ...(service ? { serviceName: service } : {}),
                ...(className && cls.type === 'interface_declaration' && methodName
                  ? { clientClass: className, clientMethod: methodName }
                  : {}),
              });
            } else sink.endpoint(method, path, 'spring', loc);
          }
        }
        if (a.name === 'RabbitListener') {
          const queues = a.values.get('queues') ?? a.values.get('queuesToDeclare') ?? a.values.get('value');
          const late = queues ? lateQueues(queues) : undefined;
          if (late) for (const parts of late) sink.topicRefs.push({ side: 'consume', broker: 'rabbitmq', parts, loc });
          else for (const q of list(a, 'queues', 'queuesToDeclare', 'value')) sink.consume('rabbitmq', q, loc);
          const qb = a.values.get('bindings');
          const bindings = qb
            ? qb.type === 'annotation'
              ? [qb]
              : argList(qb).filter((x) => x.type === 'annotation')
            : [];
          for (const b of bindings.map(annotation)) {
            const qNode = b.values.get('value');
            const xNode = b.values.get('exchange');
            const q =
              qNode?.type === 'annotation'
                ? str(annotation(qNode), 'value', 'name')
                : qNode
                  ? literal(evaluate(qNode))
                  : undefined;
            const x = xNode?.type === 'annotation' ? annotation(xNode) : undefined;
            const ex = x ? str(x, 'value', 'name') : undefined;
            if (q === undefined || ex === undefined) continue;
            const typeNode = x?.values.get('type');
            const type = typeNode
              ? (exchangeType(literal(evaluate(typeNode)) ?? rawName(evaluate(typeNode)) ?? typeNode.text) ?? 'direct')
              : 'direct';
            sink.queue(q, loc);
            sink.exchange(ex, type, loc);
            sink.consume('rabbitmq', q, loc);
            const keys = list(b, 'key');
            for (const k of keys.length ? keys : ['']) sink.binding(ex, q, k, loc);
          }
        }
        if (a.name === 'KafkaListener') for (const t of list(a, 'topics', 'value')) sink.consume('kafka', t, loc);
      }
    }
    if (cls.type === 'class_declaration') reactiveMessaging(body);
    if (micronautFile(cls.tree.rootNode)) micronaut(cls, has, className, body);
    else if (className && feign) {
      const url = str(feign, 'url');
      const service = str(feign, 'name', 'value');
      interfaceUses(cls, className, body, feign, str(feign, 'path') ?? '', 'Feign', {
        ...(service ? { serviceName: service } : {}),
        ...(url !== undefined ? { base: placeholder(url) } : {}),
      });
    } else if (className && (controller || (cls.type === 'interface_declaration' && !classMapping)))
      interfaceUses(cls, className, body, undefined, prefix);
    else if (className && cls.type === 'class_declaration' && !resource) contractImplementation(cls, body);
  }

  /**
   * MicroProfile Reactive Messaging (SmallRye, Quarkus): `@Incoming("c")` methods consume channel `c`,
   * `@Outgoing("c")` methods and `@Channel("c") Emitter<T>` fields or constructor parameters publish to it
   * (at each `emitter.send…(…)` / `emitter::send…` of the class, else at the declaration). The broker sees
   * `mp.messaging.<incoming|outgoing>.c.topic` (the channel name by default); a channel no configuration
   * binds to a connector is in-process and dropped at link time (`link.ts`).
   */
  function reactiveMessaging(body: Node | null): void {
    const emitters = new Map<string, { channel: string; line: number }>();
    const channelOf = (anns: Annotation[], name: string): string | undefined => {
      const a = anns.find((x) => x.name === name);
      return a ? str(a, 'value') : undefined;
    };
    const declared = (decl: Node, anns: Annotation[], name: string | undefined): void => {
      const channel = channelOf(anns, 'Channel');
      if (channel && name && /Emitter\b/.test(decl.childForFieldName('type')?.text ?? ''))
        emitters.set(name, { channel, line: lineOf(decl) });
    };
    for (const member of body?.namedChildren ?? []) {
      if (member?.type === 'field_declaration')
        for (const d of member.namedChildren)
          if (d?.type === 'variable_declarator')
            declared(member, annotations(member), d.childForFieldName('name')?.text);
      if (member?.type === 'constructor_declaration')
        for (const p of member.childForFieldName('parameters')?.namedChildren ?? [])
          if (p?.type === 'formal_parameter') declared(p, annotations(p), p.childForFieldName('name')?.text);
      if (member?.type !== 'method_declaration') continue;
      const anns = annotations(member);
      for (const a of anns) {
        const channel = a.name === 'Incoming' || a.name === 'Outgoing' ? str(a, 'value') : undefined;
        if (!channel) continue;
        const loc = { file, line: lineOf(a.node) };
        if (a.name === 'Incoming') sink.consume('kafka', `\${mp.messaging.incoming.${channel}.topic:${channel}}`, loc);
        else sink.publish('kafka', '', `\${mp.messaging.outgoing.${channel}.topic:${channel}}`, loc);
      }
    }
    if (!emitters.size || !body) return;
    const sent = new Set<string>();
    for (const n of body.descendantsOfType(['method_invocation', 'method_reference'])) {
      if (!n) continue;
      const target = n.type === 'method_invocation' ? n.childForFieldName('object') : n.namedChild(0);
      const method = n.type === 'method_invocation' ? n.childForFieldName('name') : n.namedChild(1);
      const name = target?.text.replace(/^this\./, '');
      const e = name ? emitters.get(name) : undefined;
      if (!e || !/^send/.test(method?.text ?? '')) continue;
      sent.add(name!);
      sink.publish('kafka', '', `\${mp.messaging.outgoing.${e.channel}.topic:${e.channel}}`, { file, line: lineOf(n) });
    }
    for (const [name, e] of emitters)
      if (!sent.has(name))
        sink.publish('kafka', '', `\${mp.messaging.outgoing.${e.channel}.topic:${e.channel}}`, { file, line: e.line });
  }

  /**
   * MicroProfile / Quarkus REST client: `@RegisterRestClient(configKey = "k", baseUri = "…")` on an interface
   * with a JAX-RS `@Path` prefix; each `@GET`/`@POST`… method calls its `@Path` under the base URL from
   * `quarkus.rest-client.k.url` (also `quarkus.rest-client."k".url`), else `k/mp-rest/url`, else `baseUri`.
   * Without a configKey the key is the interface's fully qualified name.
   */
  function microProfileClient(
    cls: Node,
    reg: Annotation,
    path: Annotation | undefined,
    className: string,
    body: Node | null,
  ): void {
    const pkg = cls.tree.rootNode.namedChildren
      .find((c) => c?.type === 'package_declaration')
      ?.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier')?.text;
    const key = str(reg, 'configKey') ?? (pkg ? `${pkg}.${className}` : className);
    const baseUri = str(reg, 'baseUri');
    const legacy = `${key}/mp-rest/url`;
    const base: Part[] = [
      {
        config: `quarkus.rest-client.${key}.url`,
        fallback: baseUri !== undefined ? `\${${legacy}:${baseUri}}` : `\${${legacy}}`,
      },
    ];
    for (const m of jaxrsMethods(body, (path && str(path, 'value')) ?? ''))
      sink.call(
        m.verb,
        concat(base, placeholder(m.path)),
        'MicroProfile',
        { file, line: lineOf(m.member.childForFieldName('name') ?? m.member) },
        { clientClass: className, clientMethod: m.member.childForFieldName('name')?.text ?? '' },
      );
  }

  /** The JAX-RS methods of a class or interface body: each `@GET`/`@POST`… (no arguments) with its `@Path` under `prefix`. */
  function* jaxrsMethods(
    body: Node | null | undefined,
    prefix: string,
  ): Generator<{ member: Node; annotation: Annotation; verb: HttpMethod; path: string }> {
    for (const member of body?.namedChildren ?? []) {
      if (member?.type !== 'method_declaration') continue;
      const anns = annotations(member);
      const sub = anns.find((a) => a.name === 'Path');
      for (const a of anns) {
        const verb = JAXRS_METHODS[a.name];
        if (verb && a.values.size === 0)
          yield { member, annotation: a, verb, path: joinPath(prefix, (sub && str(sub, 'value')) ?? '') };
      }
    }
  }

  /**
   * A class overriding methods of interfaces it implements: if the source's OpenAPI document names them
   * (`operationId`), the interface was generated from it at build time and the class serves those routes.
   */
  function contractImplementation(cls: Node, body: Node | null): void {
    const supers = supertypes(cls);
    if (!supers.length) return;
    const methods: Record<string, number> = {};
    for (const m of body?.namedChildren ?? [])
      if (m?.type === 'method_declaration' && annotations(m).some((a) => a.name === 'Override'))
        methods[m.childForFieldName('name')?.text ?? ''] = lineOf(m.childForFieldName('name') ?? m);
    if (!Object.keys(methods).length) return;
    (sink.facts.apiInterfaceUses ??= []).push({
      kind: 'server',
      iface: supers[0]!,
      prefix: '',
      framework: OPENAPI_CONTRACT,
      methods,
      annotated: [],
      loc: { file, line: lineOf(cls) },
    });
  }

  let micronautText: boolean | undefined;
  /** A Micronaut file (its `@Controller`, `@Client`, `@Get` are Micronaut's, not Spring's). */
  const micronautFile = (root: Node): boolean => (micronautText ??= MICRONAUT.test(root.text));

  /** The interfaces a class implements or an interface extends, by simple name. */
  function supertypes(cls: Node): string[] {
    const holder = cls.namedChildren.find((c) => c?.type === 'super_interfaces' || c?.type === 'extends_interfaces');
    const list = holder?.namedChildren.find((c) => c?.type === 'type_list') ?? holder;
    return (list?.namedChildren ?? [])
      .filter(
        (c): c is Node =>
          c?.type === 'type_identifier' || c?.type === 'generic_type' || c?.type === 'scoped_type_identifier',
      )
      .map((c) => c.text.replace(/<.*$/s, '').replace(/^.*\./, ''));
  }

  /** The route annotations of a class's methods: Micronaut verbs, Spring mappings (their own, unprefixed path). */
  function operations(body: Node | null): { name: string; method: HttpMethod; path: string; line: number }[] {
    const out: { name: string; method: HttpMethod; path: string; line: number }[] = [];
    for (const member of body?.namedChildren ?? []) {
      if (member?.type !== 'method_declaration') continue;
      const name = member.childForFieldName('name')?.text ?? '';
      for (const a of annotations(member)) {
        const verb = MICRONAUT_VERBS[a.name] ?? MAPPINGS[a.name];
        if (!verb) continue;
        const paths = MICRONAUT_VERBS[a.name] ? [str(a, 'value', 'uri') ?? ''] : list(a, 'value', 'path');
        for (const path of paths.length ? paths : [''])
          out.push({ name, method: verb === 'ANY' ? 'GET' : verb, path, line: lineOf(a.node) });
      }
    }
    return out;
  }

  /**
   * A class using route-annotated interfaces of any source: a controller serves their routes under its prefix,
   * a declarative client (Feign, Micronaut `@Client`) calls them; an interface with route annotations and no
   * client annotation is recorded for them (link time, across sources).
   */
  function interfaceUses(
    cls: Node,
    className: string,
    body: Node | null,
    client: Annotation | undefined,
    prefix: string,
    framework = client ? 'Feign' : 'spring',
    target: { serviceName?: string; base?: Part[] } = {},
  ): void {
    const ops = operations(body);
    const methods: Record<string, number> = {};
    for (const m of body?.namedChildren ?? [])
      if (m?.type === 'method_declaration') methods[m.childForFieldName('name')?.text ?? ''] = lineOf(m);
    const supers = supertypes(cls);
    const facts = sink.facts;
    if (cls.type === 'interface_declaration' && !client && ops.length)
      (facts.apiInterfaces ??= []).push({ name: className, ops, file });
    if (cls.type === 'interface_declaration' && !client) return;
    for (const iface of supers)
      (facts.apiInterfaceUses ??= []).push({
        kind: client ? 'client' : 'server',
        iface,
        prefix,
        framework,
        ...target,
        methods,
        annotated: ops.map((o) => o.name),
        loc: { file, line: lineOf(cls) },
      });
  }

  /**
   * Micronaut: `@Controller("/p")` classes with `@Get`/`@Post`… methods, `@Client(id | value, path)`
   * declarative clients (a service id resolved like a Feign name, or a URL), `@KafkaClient` interfaces whose
   * `@Topic` methods publish, `@KafkaListener` classes whose `@Topic` methods consume.
   */
  function micronaut(
    cls: Node,
    has: (n: string) => Annotation | undefined,
    className: string | undefined,
    body: Node | null,
  ): void {
    const kafkaClient = has('KafkaClient');
    const kafkaListener = has('KafkaListener');
    if (kafkaClient || kafkaListener)
      for (const member of body?.namedChildren ?? []) {
        if (member?.type !== 'method_declaration') continue;
        for (const a of annotations(member)) {
          if (a.name !== 'Topic') continue;
          const loc = { file, line: lineOf(a.node) };
          for (const t of list(a, 'value', 'topics')) {
            if (kafkaClient) sink.publish('kafka', '', t, loc);
            else sink.consume('kafka', t, loc);
          }
        }
      }
    const controller = cls.type === 'class_declaration' ? has('Controller') : undefined;
    const client = cls.type === 'interface_declaration' || cls.type === 'class_declaration' ? has('Client') : undefined;
    if (!className) return;
    if (controller) {
      const prefix = str(controller, 'value', 'uri') ?? '';
      for (const op of operations(body))
        sink.endpoint(op.method, joinPath(prefix, op.path), 'micronaut', { file, line: op.line });
      interfaceUses(cls, className, body, undefined, prefix, 'micronaut');
      return;
    }
    if (client) {
      // @Client("http://x"), @Client("${x.url}") or a service id (@Client("orders"), @Client(id = "orders")).
      const value = str(client, 'value', 'id') ?? '';
      const isUrl = /:\/\/|\$\{|^\//.test(value);
      const target = isUrl ? { base: placeholder(value) } : value ? { serviceName: value } : {};
      const prefix = str(client, 'path') ?? '';
      for (const op of operations(body)) {
        const path = placeholder(joinPath(prefix, op.path));
        sink.call(
          op.method,
          target.base ? concat(target.base, path) : path,
          'Micronaut',
          { file, line: op.line },
          {
            ...(target.serviceName ? { serviceName: target.serviceName } : {}),
          },
        );
      }
      interfaceUses(cls, className, body, client, prefix, 'Micronaut', target);
      return;
    }
    if (cls.type === 'interface_declaration' && !kafkaClient) interfaceUses(cls, className, body, undefined, '');
  }

  /**
   * Spring Data REST: a `@RepositoryRestResource` repository exports its collection resource `/<path>`
   * (GET, POST), its item resource `/<path>/{id}` (GET, PUT, PATCH, DELETE) and a search resource
   * `/<path>/search/<method>` per query method (`@RestResource(path)` renames, `exported = false` hides).
   * The path defaults to the domain type's name, uncapitalised and pluralised.
   */
  function repositoryResources(repo: Node, ann: Annotation | undefined): void {
    if (ann?.values.get('exported')?.text === 'false') return;
    const ext = repo.namedChildren.find((c) => c?.type === 'extends_interfaces');
    const generic = ext
      ?.descendantsOfType('generic_type')
      .find((g) => /Repository$/.test(g?.namedChild(0)?.text ?? ''));
    const domain = generic?.descendantsOfType('type_arguments')[0]?.namedChild(0)?.text.replace(/^.*\./, '');
    const path =
      (ann && str(ann, 'path')) ?? (domain ? plural(domain.replace(/^./, (c) => c.toLowerCase())) : undefined);
    if (!path) return;
    // Without the annotation Spring Data REST still exports every public repository, but only in a source
    // that depends on it: `spring-data-rest?` until the source's build file says (extract/index.ts).
    const framework = ann ? 'spring-data-rest' : IMPLICIT_DATA_REST;
    const at = { file, line: lineOf(ann?.node ?? repo) };
    const collection = joinPath(path);
    const item = joinPath(path, '{id}');
    for (const m of ['GET', 'POST'] as const) sink.endpoint(m, collection, framework, at);
    for (const m of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) sink.endpoint(m, item, framework, at);
    // An association of the item (`/catalogs/{id}/products`): the entity's relation, whatever its name.
    sink.endpoint('GET', joinPath(path, '{id}', '{property}'), framework, at);
    for (const member of repo.childForFieldName('body')?.namedChildren ?? []) {
      if (member?.type !== 'method_declaration') continue;
      const name = member.childForFieldName('name')?.text ?? '';
      const anns = annotations(member);
      const rest = anns.find((a) => a.name === 'RestResource');
      if (rest?.values.get('exported')?.text === 'false') continue;
      const query =
        /^(find|read|get|query|search|stream|count|exists)\w*By/.test(name) || anns.some((a) => a.name === 'Query');
      if (!query) continue;
      const sub = (rest && str(rest, 'path')) ?? name;
      sink.endpoint('GET', joinPath(path, 'search', sub), framework, { file, line: lineOf(member) });
    }
  }

  return {
    grpc: JAVA_GRPC,
    evaluate,
    declarations,
    rules: [
      { on: ['method_declaration'], each: summariseMethod },
      { on: ['object_creation_expression'], each: onCreation },
      { on: ['method_invocation'], each: onBeanBuilder },
      { on: ['method_invocation'], each: onInvocation },
      { on: ['class_declaration', 'interface_declaration'], each: onClass },
      { on: ['record_declaration'], each: onRecord },
      { on: ['interface_declaration'], each: onConfigMapping },
      { on: ['object_creation_expression'], each: (n) => objSite(n, typeName(n) ?? '', true) },
      // After the rules that find calls and publishes: the classes that make them with their constructor's arguments.
      { on: ['class_declaration'], each: summariseClass },
      sqlStringRule(sink, file, ['string_literal'], (s) => literal(evaluate(s)) ?? ''),
    ],
  };
};

/** Java: Spring MVC/WebFlux, RestTemplate, WebClient, Feign, Spring AMQP, Spring Kafka, JPA, Mongo, Redis. */
export const extractJava = extractorOf(javaRules);

/** The JDK's own types: a receiver of one is never a declared client. */
const JDK_TYPES = new Set([
  'String',
  'Object',
  'Integer',
  'Long',
  'Boolean',
  'Double',
  'List',
  'Map',
  'Set',
  'Optional',
  'StringBuilder',
  'Collection',
  'Stream',
]);

/** Names too common to be a wrapper's (`map.get(key)`, `list.add(x)`): never followed across classes. */
const GENERIC_METHODS =
  /^(get|set|put|post|delete|patch|head|add|remove|contains|equals|append|format|of|valueOf|toString|apply|accept|call|run|execute|exchange|request|send|info|debug|warn|error|trace|println|print|header|body|build|orElse|map|filter|forEach|collect)$/;

/** Whether a call is inside a method taking Spring Data REST's `RepositoryRestConfiguration`. */
function withinDataRestConfiguration(node: Node): boolean {
  const method = enclosing(node, 'method_declaration');
  return /\bRepositoryRestConfiguration\b/.test(method?.childForFieldName('parameters')?.text ?? '');
}

function enclosing(node: Node, type: string): Node | undefined {
  for (let n: Node | null = node.parent; n; n = n.parent) if (n.type === type) return n;
  return undefined;
}

/** Spring Data REST resources of a repository without `@RepositoryRestResource`: kept only where the build depends on it. */
export const IMPLICIT_DATA_REST = 'spring-data-rest?';

/** English plural of a resource name (Spring Data REST's default path: `category` → `categories`). */
function plural(word: string): string {
  if (/[^aeiou]y$/i.test(word)) return word.slice(0, -1) + 'ies';
  if (/(s|x|z|ch|sh)$/i.test(word)) return word + 'es';
  if (/^person$/i.test(word)) return 'people';
  return word + 's';
}

/** A JAX-RS `WebTarget.path(x)`: one `/` between the URL and the segment, whatever each side already has. */
function joinSegment(url: Part[], segment: Part[]): Part[] {
  const last = url[url.length - 1];
  const first = segment[0];
  const endsSlash = last !== undefined && 'lit' in last && last.lit.endsWith('/');
  const startsSlash = first !== undefined && 'lit' in first && first.lit.startsWith('/');
  if (endsSlash && startsSlash) return concat(url, lit(first.lit.slice(1)), segment.slice(1));
  return endsSlash || startsSlash ? concat(url, segment) : concat(url, lit('/'), segment);
}
