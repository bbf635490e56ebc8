/**
 * Helpers of the differential tests that hold a quick conversion path to its full one
 * (`src/chat-completions/messages-quick.test.ts`, `src/openai/items-quick.test.ts`).
 */

/** Keys in order, all the way down: `toEqual` alone does not compare their order. */
export function keyOrder(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(keyOrder);
  return Object.keys(value).map((key) => [key, keyOrder((value as Record<string, unknown>)[key])]);
}

/** Every object and array reachable from `value`. */
export function objectsIn(value: unknown, found = new Set<object>()): Set<object> {
  if (typeof value !== "object" || value === null || found.has(value)) return found;
  found.add(value);
  for (const key of Object.keys(value)) objectsIn((value as Record<string, unknown>)[key], found);
  return found;
}
