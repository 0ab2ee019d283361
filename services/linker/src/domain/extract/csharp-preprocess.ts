/**
 * The C# preprocessor's conditional compilation (`#if`/`#elif`/`#else`/`#endif`, `#define`/`#undef`): the code
 * the compiler sees. Lines of branches not taken, and the directive lines themselves, are blanked (every character
 * but line breaks becomes a space), so offsets, lines and columns stay those of the file and tree-sitter parses
 * one branch only: a controller whose actions sit in `#if !X … #else … #endif` has each action once, and code
 * of the inactive branch yields no calls, routes or messages. A symbol is defined by the file's own `#define`s
 * and the project's `DefineConstants` (`defines`); any other symbol is undefined (false).
 */

const DIRECTIVE = /^[ \t]*#[ \t]*(if|elif|else|endif|define|undef)\b(.*)$/;

/** Whether a `#if`/`#elif` condition holds: `!`, `&&`, `||`, `==`, `!=`, parentheses, `true`, `false`, symbols. */
export function conditionHolds(condition: string, defined: ReadonlySet<string>): boolean {
  const tokens = condition.replace(/\/\/.*$/, '').match(/\|\||&&|==|!=|!|\(|\)|[A-Za-z_]\w*/g) ?? [];
  let i = 0;
  const primary = (): boolean => {
    const t = tokens[i++];
    if (t === '!') return !primary();
    if (t === '(') {
      const v = or();
      if (tokens[i] === ')') i++;
      return v;
    }
    if (t === 'true') return true;
    if (t === 'false' || t === undefined) return false;
    return defined.has(t);
  };
  const equality = (): boolean => {
    let v = primary();
    while (tokens[i] === '==' || tokens[i] === '!=') {
      const op = tokens[i++];
      const w = primary();
      v = op === '==' ? v === w : v !== w;
    }
    return v;
  };
  const and = (): boolean => {
    let v = equality();
    while (tokens[i] === '&&') {
      i++;
      v = equality() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (tokens[i] === '||') {
      i++;
      v = and() || v;
    }
    return v;
  };
  return or();
}

/** The symbols a `.csproj` defines for every build (`<DefineConstants>A;B;$(DefineConstants)</DefineConstants>`). */
export function projectDefines(csproj: string): string[] {
  const out: string[] = [];
  for (const m of csproj.matchAll(/<DefineConstants\b[^>]*>([^<]*)<\/DefineConstants>/g))
    // A constant set under a `Condition` (one configuration) is not every build's: only unconditioned ones count.
    if (!/Condition\s*=/.test(m[0])) out.push(...m[1]!.split(/[;,\s]+/).filter((s) => /^[A-Za-z_]\w*$/.test(s)));
  return out;
}

/** The file's text as compiled (see the module comment); the text itself when it has no directive of these. */
export function activeCSharp(text: string, defines: readonly string[] = []): string {
  if (!/^[ \t]*#[ \t]*(?:if|define|undef)\b/m.test(text)) return text;
  const defined = new Set(defines);
  const lines = text.split('\n');
  /** Per open `#if`: whether its enclosing code is active, and whether one of its branches was taken. */
  const stack: { outer: boolean; taken: boolean }[] = [];
  let active = true;
  const blank = (i: number): void => {
    lines[i] = lines[i]!.replace(/[^\r]/g, ' ');
  };
  for (let i = 0; i < lines.length; i++) {
    const d = DIRECTIVE.exec(lines[i]!);
    if (!d) {
      if (!active) blank(i);
      continue;
    }
    const [, kind, rest] = d;
    const arg = rest!.trim();
    if (kind === 'if') {
      const holds: boolean = active && conditionHolds(arg, defined);
      stack.push({ outer: active, taken: holds });
      active = holds;
    } else if (kind === 'elif' || kind === 'else') {
      const top = stack[stack.length - 1];
      if (top) {
        const holds: boolean = top.outer && !top.taken && (kind === 'else' || conditionHolds(arg, defined));
        top.taken ||= holds;
        active = holds;
      }
    } else if (kind === 'endif') {
      const top = stack.pop();
      if (top) active = top.outer;
    } else if (active) {
      const symbol = /^[A-Za-z_]\w*/.exec(arg)?.[0];
      if (symbol) {
        if (kind === 'define') defined.add(symbol);
        else defined.delete(symbol);
      }
    }
    blank(i);
  }
  return lines.join('\n');
}
