import type { JsonObject } from "./message.js";

/**
 * The keys of the library's bookkeeping on blocks, which no provider's API takes: each
 * adapter keeps the fields of its own wire format that our blocks do not model under its key
 * in a block's `extra` (`aiSdk`, `openai`, `chatCompletions`, `gemini`, `langchain`), and marks
 * an opaque block with `key:…` fields (`openai:item`, `aiSdk:providerOptions`,
 * `chatCompletions:part`, `gemini:content`, `langchain:message`); the library's own markers
 * start `agentCompaction:`. A converter to another provider sends none of them.
 */
export const BOOKKEEPING_KEYS = Object.freeze({
  aiSdk: "aiSdk",
  openai: "openai",
  chatCompletions: "chatCompletions",
  gemini: "gemini",
  langchain: "langchain",
  library: "agentCompaction",
} as const);

const HEADS: ReadonlySet<string> = new Set(Object.values(BOOKKEEPING_KEYS));

/** Whether `key` is bookkeeping ({@link BOOKKEEPING_KEYS}): one of them, or `one:…`. */
export function isBookkeepingKey(key: string): boolean {
  const colon = key.indexOf(":");
  return HEADS.has(colon === -1 ? key : key.slice(0, colon));
}

/**
 * `object` without its bookkeeping keys (the adapters' marks, our own markers), as it goes to
 * a provider's API, which refuses unknown fields: `object` itself when it has none, else a
 * shallow copy without them.
 */
export function withoutBookkeeping(object: JsonObject): JsonObject {
  let out: JsonObject | undefined;
  for (const key in object) {
    if (!Object.hasOwn(object, key) || !isBookkeepingKey(key)) continue;
    out ??= { ...object };
    delete out[key];
  }
  return out ?? object;
}

/**
 * What a caller's field named as bookkeeping is refused with: on a block it would be read as
 * an adapter's own mark, and left out on the way to another provider.
 */
export const BOOKKEEPING_FIELD_MESSAGE =
  "is a name the library keeps its own marks under (aiSdk, openai, chatCompletions, gemini, " +
  "langchain, agentCompaction, and each followed by a colon): rename the field";
