/** Deep copy of a JSON-compatible value (documents hand out copies, never live references). */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
