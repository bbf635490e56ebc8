import { createHash } from "node:crypto";

/**
 * Cache diagnostics, as the loopback Messages API reports them, from
 * https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics (read 2026-12 through
 * stored mirrors) and the SDK's `DiagnosticsParam` / `Diagnostics` / `CacheMissReason` types:
 * a request with `diagnostics: { previous_message_id }` gets `diagnostics` in its response:
 * `null` on the first turn (`previous_message_id: null`) or when the request only appended to
 * the one it names; otherwise `{ cache_miss_reason }` naming the first divergence, in the docs'
 * order: `model_changed`, `system_changed`, `tools_changed`, `messages_changed` ("History
 * truncated/edited/reordered rather than appended to"), each with `cache_missed_input_tokens`
 * (what "would have been read from cache had the prefix matched"); `previous_message_not_found`
 * for an id the server has no record of; `unavailable` when other prompt-affecting parameters
 * (`thinking`, `tool_choice`, `context_management`) changed. A request without `diagnostics`
 * gets no `diagnostics` field.
 */

/** A `cache_miss_reason`. */
export type CacheMissReason =
  | {
      type: "model_changed" | "system_changed" | "tools_changed" | "messages_changed";
      cache_missed_input_tokens: number;
    }
  | { type: "previous_message_not_found" }
  | { type: "unavailable" };

/** What the server remembers of a request, by the id of its response. */
export interface RequestFingerprint {
  model: string;
  system: string;
  tools: string;
  /** Other prompt-affecting parameters. */
  other: string;
  /** A hash of each message, and its rough token count. */
  messages: { hash: string; tokens: number }[];
  /** Rough tokens of `system` and `tools`. */
  prefixTokens: number;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hash(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(value ?? null))
    .digest("hex")
    .slice(0, 24);
}

const rough = (value: unknown) => Math.ceil(JSON.stringify(value ?? "").length / 4);

/** The fingerprint of a request body. */
export function fingerprintOf(body: unknown): RequestFingerprint {
  const request = isRecord(body) ? body : {};
  const messages = Array.isArray(request["messages"]) ? request["messages"] : [];
  return {
    model: String(request["model"] ?? ""),
    system: hash(request["system"]),
    tools: hash(request["tools"]),
    other: hash([request["thinking"], request["tool_choice"], request["context_management"]]),
    messages: messages.map((message) => ({ hash: hash(message), tokens: rough(message) })),
    prefixTokens: rough(request["system"]) + rough(request["tools"]),
  };
}

/** Whether the request asks for diagnostics (it has a `diagnostics` field). */
export function wantsDiagnostics(body: unknown): boolean {
  return isRecord(body) && isRecord(body["diagnostics"]);
}

/** The id a request's `diagnostics.previous_message_id` names (`null` on a first turn). */
export function previousMessageId(body: unknown): string | null {
  if (!isRecord(body) || !isRecord(body["diagnostics"])) return null;
  const id = body["diagnostics"]["previous_message_id"];
  return typeof id === "string" ? id : null;
}

/**
 * The response's `diagnostics` for a request compared with the one its
 * `previous_message_id` names (`undefined` when the server has no record of it).
 */
export function diagnose(
  previousId: string | null,
  previous: RequestFingerprint | undefined,
  current: RequestFingerprint,
): { cache_miss_reason: CacheMissReason } | null {
  if (previousId === null) return null;
  if (previous === undefined) return { cache_miss_reason: { type: "previous_message_not_found" } };
  const all =
    previous.prefixTokens + previous.messages.reduce((sum, { tokens }) => sum + tokens, 0);
  const missed = (
    type: "model_changed" | "system_changed" | "tools_changed" | "messages_changed",
    tokens: number,
  ) => ({
    cache_miss_reason: { type, cache_missed_input_tokens: tokens },
  });
  if (previous.model !== current.model) return missed("model_changed", all);
  if (previous.system !== current.system) return missed("system_changed", all);
  if (previous.tools !== current.tools) return missed("tools_changed", all);
  const first = previous.messages.findIndex(
    (message, index) => current.messages[index]?.hash !== message.hash,
  );
  if (first !== -1) {
    const tokens = previous.messages.slice(first).reduce((sum, message) => sum + message.tokens, 0);
    return missed("messages_changed", tokens);
  }
  if (previous.other !== current.other) return { cache_miss_reason: { type: "unavailable" } };
  return null;
}
