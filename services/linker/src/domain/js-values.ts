/**
 * JavaScript/TypeScript values across modules and packages (issue 20, value flow): what one file declares,
 * imports and calls, kept symbolic at extraction (`extract/js-modules.ts`) and evaluated at link time over
 * every attached source, so a value declared in a shared package (`Subjects.OrderCreated` of `@org/nats`,
 * spread into another object, bound to an event by `defineEvent({ subject })` in `@org/contracts`) reaches
 * the service that passes it to a library function summarised once (`publishEvent(def)` publishes
 * `def.subject`). Structured-cloneable: the facts cross worker threads and are stored.
 */

/** A value as written: literals, names with member paths, objects, calls; `p` names a parameter by index. */
export type JsVal =
  | { readonly s: string }
  /** A name of the file (or a parameter `$0`, `$1`…, or `this`) and the members read from it. */
  | { readonly id: string; readonly path?: readonly string[] }
  | { readonly obj: Readonly<Record<string, JsVal>>; readonly spreads?: readonly JsVal[] }
  | { readonly arr: readonly JsVal[] }
  /** A call's value (a function's return summary), and the members read from it. */
  | { readonly call: JsVal; readonly args: readonly JsVal[]; readonly path?: readonly string[] }
  | { readonly new: JsVal; readonly args: readonly JsVal[] }
  /** One of several values (`a ?? b`, `c ? a : b`): the first that evaluates wins where one is needed. */
  | { readonly alt: readonly JsVal[] }
  | { readonly env: string; readonly fallback?: string }
  /** Concatenation and template literals. */
  | { readonly cat: readonly JsVal[] }
  | { readonly unknown: true };

/** A messaging operation of a function: its names over the function's parameters and `this`. */
export interface JsEffect {
  /**
   * `declare`: a JetStream consumer configuration no fetch of its function uses (a topology's list): the
   * subjects of its durable; `attach`: `consumers.get(stream, durable)`, a consumer whose subjects a
   * declaration (anywhere) gives.
   */
  readonly op: 'publish' | 'consume' | 'declare' | 'attach' | 'http';
  readonly broker: 'nats' | 'http';
  /** The subject; for `http`, the URL of a `fetch`/axios call built from the function's parameters. */
  readonly subject: JsVal;
  /** `http`: the method (`init.method`, an axios verb). */
  readonly method?: JsVal;
  /** JetStream: the stream and durable consumer a consumer configuration names; a core NATS queue group. */
  readonly stream?: JsVal;
  readonly durable?: JsVal;
  readonly group?: JsVal;
  readonly line: number;
}

/** A call inside a function (or at a module's top level, `fn` absent): where summaries are instantiated. */
export interface JsSite {
  /** The enclosing function: `name` or `Class.method`. */
  readonly fn?: string;
  /** What is called: a function value, or a method of an object value (`new X(c).publish`, `p.listen`). */
  readonly callee: JsVal;
  readonly method?: string;
  readonly args: readonly JsVal[];
  readonly line: number;
}

export interface JsFunction {
  /** `name`, or `Class.method` (`Class.constructor` for a constructor). */
  readonly name: string;
  readonly params: number;
  /** The returned value when the function has one return (an arrow's expression body). */
  readonly returns?: JsVal;
  readonly effects: readonly JsEffect[];
  /** Constructors: the fields set (`this.x = v`, parameter properties `constructor(private x)`). */
  readonly sets?: Readonly<Record<string, JsVal>>;
}

export interface JsClass {
  readonly name: string;
  readonly extends?: string;
  /** Field initialisers (`readonly subject = Subjects.X`). */
  readonly fields: Readonly<Record<string, JsVal>>;
}

export interface JsModule {
  readonly file: string;
  /** Local name → the module it comes from and the name imported there (`*` for a namespace, `default`). */
  readonly imports: Readonly<Record<string, { readonly from: string; readonly name: string }>>;
  /** `export * from` (`names` absent) and `export { a as b } from` (exported → imported). */
  readonly reexports: readonly { readonly from: string; readonly names?: Readonly<Record<string, string>> }[];
  /** Top-level constants (`const`, `enum`, `export { a as b }` aliases). */
  readonly values: Readonly<Record<string, JsVal>>;
  readonly functions: readonly JsFunction[];
  readonly classes: readonly JsClass[];
  readonly sites: readonly JsSite[];
}

/** A package.json of a source: its npm name and entry, for imports of it from other sources. */
export interface JsPackage {
  readonly dir: string;
  readonly name: string;
  readonly entry?: string;
}
