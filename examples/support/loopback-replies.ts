import { errorBody } from "../../src/testing/anthropic-rules/api-error.js";
import { signCompaction } from "../../src/testing/anthropic-rules/binding.js";
import { defaultSummary } from "../../src/testing/anthropic-rules/compaction.js";
import {
  DEFAULT_THINKING,
  requestTokens,
  roughTokens,
} from "../../src/testing/anthropic-rules/responses.js";
import {
  signReplyContent,
  type ThinkingVerdict,
} from "../../src/testing/anthropic-rules/thinking.js";
import { type AppliedEdit, applyContextEdits } from "./context-editing.js";
import type { Reply } from "./messages-api-types.js";
import { renderedMessages } from "./system-messages.js";

/**
 * What the loopback server reads of a request and writes back, without HTTP: the prompt the
 * model is shown (thinking the check dropped and cleared system messages left out, context
 * edits applied) and the parts of each kind of response.
 */

/** What the model reads of a request: what it is shown, after the server's context edits. */
export interface ModelView {
  tokens: number;
  appliedEdits?: AppliedEdit[];
}

/** A request's thinking verdict, once the request passed the check. */
export type AcceptedThinking = Extract<ThinkingVerdict, { ok: true }>;

/** The parts of a `message` response a reply sets. */
export interface ResponseParts {
  content: Record<string, unknown>[];
  stopReason: string;
  usage: Record<string, unknown>;
  /** Fields after `usage` (`context_management`). */
  extra: Record<string, unknown>;
}

/** An HTTP answer: status, headers and the JSON body. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * What the model reads of a request: the thinking blocks the check dropped left out, turn-scoped
 * system messages no longer shown left out, then the request's context edits applied.
 */
export function modelView(
  body: unknown,
  dropped: readonly { messageIndex: number; blockIndex: number }[],
): ModelView {
  const visible = withoutBlocks(body, dropped) as Record<string, unknown> | undefined;
  const messages = Array.isArray(visible?.["messages"]) ? visible["messages"] : [];
  const rendered = { ...visible, messages: renderedMessages(messages) };
  if (visible?.["context_management"] === undefined || visible["context_management"] === null) {
    return { tokens: requestTokens(rendered) };
  }
  const edited = applyContextEdits(rendered, (edit) => requestTokens(edit));
  return { tokens: requestTokens(edited.body), appliedEdits: edited.appliedEdits };
}

/** The body without the thinking blocks the model is not shown (for the token count). */
function withoutBlocks(
  body: unknown,
  dropped: readonly { messageIndex: number; blockIndex: number }[],
): unknown {
  if (dropped.length === 0) return body;
  const { messages } = body as { messages: { content: unknown }[] };
  return {
    ...(body as object),
    messages: messages.map((message, messageIndex) =>
      Array.isArray(message.content)
        ? {
            ...message,
            content: message.content.filter(
              (_, blockIndex) =>
                !dropped.some(
                  (block) => block.messageIndex === messageIndex && block.blockIndex === blockIndex,
                ),
            ),
          }
        : message,
    ),
  };
}

/** The reply's content with its leading thinking (and redacted thinking) blocks. */
function withLeadingThinking(
  content: Record<string, unknown>[],
  reply: Extract<Reply, { type: "message" }>,
  requestThinks: boolean,
): Record<string, unknown>[] {
  if (
    content.some((block) => block["type"] === "thinking" || block["type"] === "redacted_thinking")
  ) {
    return content;
  }
  const lead: Record<string, unknown>[] = [];
  const text = reply.thinking ?? (requestThinks ? DEFAULT_THINKING : false);
  if (text !== false) lead.push({ type: "thinking", thinking: text });
  if (reply.redactedThinking !== undefined) {
    lead.push({ type: "redacted_thinking", hidden: reply.redactedThinking });
  }
  return [...lead, ...content];
}

/**
 * A message reply's content (thinking signed, led by thinking while the request thinks), stop
 * reason and usage (the model's view of the request in, the content out), and the context edits
 * it applied.
 */
export function messageParts(
  reply: Extract<Reply, { type: "message" }>,
  body: unknown,
  verdict: AcceptedThinking | undefined,
  view: ModelView | undefined,
): ResponseParts {
  const content = signReplyContent(
    body,
    withLeadingThinking(
      reply.content ?? [{ type: "text", text: reply.text ?? "ok" }],
      reply,
      verdict?.thinking ?? false,
    ),
    verdict?.previous ?? null,
  );
  return {
    content,
    stopReason:
      reply.stopReason ??
      (content.some((block) => block["type"] === "tool_use") ? "tool_use" : "end_turn"),
    usage: {
      input_tokens: view?.tokens ?? requestTokens(body),
      output_tokens: roughTokens(content),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...reply.usage,
    },
    extra:
      view?.appliedEdits === undefined
        ? {}
        : { context_management: { applied_edits: view.appliedEdits } },
  };
}

/**
 * A compaction reply: one signed `compaction` block (none for another stop reason), top-level
 * usage 0 and the cost in `usage.iterations`.
 */
export function compactionParts(
  reply: Extract<Reply, { type: "compaction" }>,
  body: unknown,
  view: ModelView | undefined,
): ResponseParts {
  const stopReason = reply.stopReason ?? "compaction";
  const summary = reply.summary ?? defaultSummary(body);
  const content =
    stopReason === "compaction"
      ? [{ type: "compaction", content: summary, signature: signCompaction(body, summary) }]
      : [];
  const iteration = {
    type: "compaction",
    input_tokens: view?.tokens ?? requestTokens(body),
    output_tokens: content.length > 0 ? roughTokens(summary) : 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    ...reply.iteration,
  };
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    iterations: [iteration],
  };
  return { content, stopReason, usage, extra: {} };
}

/** An API error reply: its status, `retry-after-ms: 1` unless it says otherwise, and the body. */
export function errorAnswer(reply: Extract<Reply, { type: "error" }>): HttpAnswer {
  return {
    status: reply.status,
    headers: { "retry-after-ms": "1", ...reply.headers },
    body: errorBody({
      status: reply.status,
      message: reply.message ?? `loopback error ${reply.status}`,
      ...(reply.errorType === undefined ? {} : { errorType: reply.errorType }),
      ...(reply.errorCode === undefined ? {} : { errorCode: reply.errorCode }),
    }),
  };
}
