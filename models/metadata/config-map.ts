// Config dictionaries (topic and broker overrides, effective configs): null-prototype objects, never plain ones,
// so that a key like `__proto__` is an ordinary own key (and then refused by name) instead of silently
// replacing the object's prototype, and `constructor` never reads Object.prototype's. Immer keeps the null
// prototype through its drafts. The three names are refused wherever a config name comes in.

/** Names that can never be config names (or keys of any dictionary a request fills). */
export const FORBIDDEN_CONFIG_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenConfigName(name: string): boolean {
  return FORBIDDEN_CONFIG_NAMES.has(name);
}

/** A null-prototype dictionary holding `entries` (an object's own entries, or pairs). */
export function configMap(
  entries: Iterable<readonly [string, string]> | Readonly<Record<string, string>> = [],
): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const pairs: Iterable<readonly [string, string]> =
    Symbol.iterator in entries
      ? (entries as Iterable<readonly [string, string]>)
      : Object.entries(entries as Record<string, string>);
  for (const [k, v] of pairs) out[k] = v;
  return out;
}

/** An empty null-prototype dictionary of any value type (image maps keyed by names). */
export function dictionary<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}
