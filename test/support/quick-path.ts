import fc from "fast-check";
import type { Message } from "../../src/core/message.js";

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

/**
 * The blocks both quick writers meet: a text, a call (`c1`/`c2`) and its result, each with an
 * `extra` drawn from `extra` (the adapter's own bookkeeping, or anything else); `text` draws
 * the texts and tool output.
 */
export function commonBlocks<Extra>(text: fc.Arbitrary<string>, extra: fc.Arbitrary<Extra>) {
  return [
    fc.record({ type: fc.constant("text"), text, extra }),
    fc.record({
      type: fc.constant("tool_use"),
      id: fc.constantFrom("c1", "c2"),
      name: fc.constantFrom("read", "grep"),
      input: fc.dictionary(fc.constantFrom("path", "n"), fc.oneof(fc.string(), fc.integer())),
      extra,
    }),
    fc.record({
      type: fc.constant("tool_result"),
      toolUseId: fc.constantFrom("c1", "c2"),
      content: fc.oneof(text, fc.constant([{ type: "text" as const, text: "x" }])),
      isError: fc.boolean(),
      extra,
    }),
  ] as const;
}

/** A block as the conversion makes it: `extra` absent rather than `undefined`. */
export function tidy<T extends object>(value: T): T {
  const out = { ...value } as T & { extra?: unknown };
  if (out.extra === undefined) delete out.extra;
  return out;
}

/**
 * Messages of the given roles and contents with the fields every message has (ids `m0`, `m1`,
 * …, one session, turn and date): what the conversions take, which check their input.
 */
export function ourMessages<Spec extends { role: string; content: readonly unknown[] }>(
  specs: readonly Spec[],
): Message[] {
  return specs.map(
    (spec, index) =>
      ({
        id: `m${index}`,
        sessionId: "s1",
        turnId: { owner: "u", number: 1 },
        createdAt: new Date(0),
        ...spec,
      }) as unknown as Message,
  );
}
