import { signCompaction } from "./binding.js";
import { defaultSummary } from "./compaction.js";
import { signReplyContent, type ThinkingVerdict } from "./thinking.js";
import { bodyOf, isRecord } from "./wire.js";

/** A rough token count: about four characters a token (the stand-in and the loopback server count alike). */
export function roughTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}

/**
 * The tokens of a request as the model reads it: `system`, tools and messages, without the
 * thinking blocks the prefix check dropped.
 */
export function requestTokens(
  body: unknown,
  dropped: readonly { messageIndex: number; blockIndex: number }[] = [],
): number {
  const { system, tools, messages } = bodyOf(body);
  if (dropped.length === 0 || !Array.isArray(messages)) {
    return roughTokens({ system, tools, messages });
  }
  const shown = messages.map((message: unknown, messageIndex) => {
    if (!isRecord(message) || !Array.isArray(message["content"])) return message;
    const content = message["content"].filter(
      (_: unknown, blockIndex: number) =>
        !dropped.some((at) => at.messageIndex === messageIndex && at.blockIndex === blockIndex),
    );
    return { ...message, content };
  });
  return roughTokens({ system, tools, messages: shown });
}

/** One tool call a scripted reply makes. */
export interface StandInToolCall {
  name: string;
  /** @default {} */
  input?: Record<string, unknown>;
  /** @default `toolu_standin_<n>` */
  id?: string;
}

/** A scripted message reply. */
export interface StandInMessageReply {
  /** Its text. @default "ok" when it makes no tool call, else no text */
  text?: string;
  /** Tool calls after the text; the reply stops for `tool_use`. @default none */
  toolCalls?: StandInToolCall[];
  /**
   * The leading thinking block's text; a string leads with it even when the request does not
   * think, `false` answers without one even when it does (as a client-side edit would show).
   * @default a short fixed text while the request thinks
   */
  thinking?: string | false;
  /** Adds a `redacted_thinking` block hiding this text after the leading thinking. */
  redactedThinking?: string;
  /** @default "tool_use" with tool calls, else "end_turn" */
  stopReason?: string;
  /** Overrides of the usage reported (by default from the stand-in's own token estimate). */
  usage?: Record<string, number>;
}

/** A scripted answer to a compaction request (`compaction: { type: "summarize" }`). */
export interface StandInCompactionReply {
  /** @default a short summary naming the user's first request */
  summary?: string;
  /** Anything but `"compaction"` answers with empty content, as when no summary comes back. @default "compaction" */
  stopReason?: string;
}

/** The leading thinking block's text while the request thinks, unless the reply sets one. */
export const DEFAULT_THINKING = "Let me work out what the request needs before answering.";

/** Numbers each reply and tool call of one stand-in. */
export interface Counters {
  messages: number;
  toolCalls: number;
}

function replyContent(reply: StandInMessageReply, thinks: boolean, counters: Counters) {
  const content: Record<string, unknown>[] = [];
  const thinking = reply.thinking ?? (thinks ? DEFAULT_THINKING : false);
  if (thinking !== false) content.push({ type: "thinking", thinking });
  if (reply.redactedThinking !== undefined) {
    content.push({ type: "redacted_thinking", hidden: reply.redactedThinking });
  }
  const calls = reply.toolCalls ?? [];
  const text = reply.text ?? (calls.length === 0 ? "ok" : undefined);
  if (text !== undefined) content.push({ type: "text", text, citations: null });
  for (const call of calls) {
    counters.toolCalls += 1;
    content.push({
      type: "tool_use",
      id: call.id ?? `toolu_standin_${counters.toolCalls}`,
      name: call.name,
      input: call.input ?? {},
      caller: { type: "direct" },
    });
  }
  return content;
}

function usage(input: number, output: number, extra: Record<string, unknown> = {}) {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
    ...extra,
  };
}

function envelope(body: unknown, counters: Counters, content: unknown[], stopReason: string) {
  counters.messages += 1;
  const model = bodyOf(body)["model"];
  return {
    id: `msg_standin_${counters.messages}`,
    type: "message",
    role: "assistant",
    model: typeof model === "string" ? model : "stand-in",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    context_management: null,
    diagnostics: null,
  };
}

/** A `Message` answering `body` with a scripted reply, its thinking signed, its usage counted. */
export function messageResponse(
  body: unknown,
  verdict: Extract<ThinkingVerdict, { ok: true }>,
  inputTokens: number,
  reply: StandInMessageReply,
  counters: Counters,
  cache: { read: number; write: number } = { read: 0, write: 0 },
): Record<string, unknown> {
  const content = signReplyContent(
    body,
    replyContent(reply, verdict.thinking, counters),
    verdict.previous,
  );
  const toolUse = content.some((block) => block["type"] === "tool_use");
  return {
    ...envelope(body, counters, content, reply.stopReason ?? (toolUse ? "tool_use" : "end_turn")),
    usage: {
      ...usage(inputTokens - cache.read - cache.write, roughTokens(content)),
      cache_creation_input_tokens: cache.write,
      cache_read_input_tokens: cache.read,
      ...reply.usage,
    },
    ...(verdict.inputTransformations === undefined
      ? {}
      : { input_transformations: verdict.inputTransformations }),
  };
}

/**
 * The answer to a compaction request: one signed `compaction` block (the turns kept after it
 * stay valid), top-level usage 0 and the cost in `usage.iterations`, as the API reports it.
 */
export function compactionResponse(
  body: unknown,
  inputTokens: number,
  reply: StandInCompactionReply,
  counters: Counters,
): Record<string, unknown> {
  const stopReason = reply.stopReason ?? "compaction";
  const summary = reply.summary ?? defaultSummary(body);
  const written = stopReason === "compaction";
  const content = written
    ? [{ type: "compaction", content: summary, signature: signCompaction(body, summary) }]
    : [];
  const iteration = {
    type: "compaction",
    input_tokens: inputTokens,
    output_tokens: written ? roughTokens(summary) : 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
  };
  return {
    ...envelope(body, counters, content, stopReason),
    usage: usage(0, 0, { iterations: [iteration] }),
  };
}
