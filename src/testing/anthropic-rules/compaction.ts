import { readCompactionBlock } from "./binding.js";
import {
  type ApiProblem,
  type Block,
  blocksOf,
  isRecord,
  messagesOf,
  type RuleRequest,
  type WireMessage,
} from "./wire.js";

/**
 * On-demand compaction, as the Messages API speaks it: what a compaction request may carry, and
 * the checks on the `compaction` block sent back. The rules, from the platform docs
 * (read 2026-12 through stored mirrors):
 * - Compaction on demand: https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand
 * - Keep recent turns: https://platform.claude.com/docs/en/build-with-claude/compaction-keep-recent-turns
 * - Compaction and preserved thinking:
 *   https://platform.claude.com/docs/en/build-with-claude/compaction-thinking-blocks
 * - The SDK's own types and error classes (`@anthropic-ai/sdk` 1.14).
 *
 * 1. The request. A top-level `"compaction": {"type": "summarize", "instructions"?}` with the
 *    `compact-2026-09-04` beta asks for a summary of every message in the request and no reply:
 *    "returns the block alone with `stop_reason` `"compaction"`". It "can't combine `compaction`
 *    with `context_management`", and rejects `stop_sequences`, `output_config.format` and a
 *    `tool_choice` of type `any` or `tool`; `instructions` holds "up to 16,384 characters". "If
 *    the last `assistant` turn ends in a tool call with no result yet, the API rejects the
 *    request"; `messages` without `user` or `assistant` content is `compaction_nothing_to_summarize`.
 *    Without the beta header: "the `compaction` parameter `requires anthropic-beta:
 *    compact-2026-09-04`".
 * 2. The reply (the server's side): one `{ type: "compaction", content, signature }` block;
 *    top-level `input_tokens` and `output_tokens` 0, the cost in `usage.iterations` as a
 *    `compaction` entry. When no summary comes back: "a 200 with empty `content`", `stop_reason`
 *    `max_tokens`, `model_context_window_exceeded`, `tool_use`, `refusal` or `end_turn`, "still
 *    billed and reported in `usage.iterations`, with zero usage when no call could be made".
 *    Errors: 529 `overloaded_error` with `error.details.error_code` `compaction_unavailable`.
 * 3. The block sent back (with the beta header): "Put the block first in `messages`, either as
 *    an `assistant` message of its own or as the first content block of the first message";
 *    summarized messages left in front of it are `compaction_block_misplaced`; "Send exactly
 *    one `compaction` block per request" (the SDK's `compaction_block_ambiguous`); a changed
 *    `signature` or `content` is `compaction_signature_invalid` or `compaction_content_mismatch`;
 *    a field the API didn't return is "`messages.0.content.0.compaction.citations`: Extra
 *    inputs are not permitted". Without the beta header a signed block is "`compaction` is not
 *    one of the expected content block types". Blocks not signed here (the threshold form,
 *    `compact-2026-01-12`) are carried as before: the checked prefix starts at them.
 * 4. Kept turns: the block stands for the messages it summarized, so the thinking of the turns
 *    kept after it stays valid (`binding.ts`, {@link readCompactionBlock}).
 */

/** The beta of on-demand compaction. */
export const COMPACTION_BETA = "compact-2026-09-04";

/** The most characters `compaction.instructions` may hold. */
export const MAX_COMPACTION_INSTRUCTIONS = 16_384;

const BLOCK_FIELDS = new Set(["type", "content", "signature", "cache_control", "tool_changes"]);

/** Whether the request asks for a summary (a top-level `compaction`). */
export function isCompactionRequest(body: unknown): boolean {
  return isRecord(body) && body["compaction"] !== undefined && body["compaction"] !== null;
}

const invalid = (message: string, errorCode?: string): ApiProblem => ({
  status: 400,
  message,
  ...(errorCode === undefined ? {} : { errorCode }),
});

/** What is wrong with a compaction request's parameters, or `undefined`. */
function compactionParameterProblem(body: Record<string, unknown>, beta: boolean) {
  if (!beta) {
    return invalid(
      `compaction: the \`compaction\` parameter requires anthropic-beta: ${COMPACTION_BETA}`,
    );
  }
  const compaction = body["compaction"];
  if (!isRecord(compaction) || compaction["type"] !== "summarize") {
    return invalid("compaction.type: Input should be 'summarize'");
  }
  const instructions = compaction["instructions"];
  if (instructions !== undefined && instructions !== null) {
    if (typeof instructions !== "string") {
      return invalid("compaction.instructions: Input should be a valid string");
    }
    if (instructions.length > MAX_COMPACTION_INSTRUCTIONS) {
      return invalid(
        `compaction.instructions: String should have at most ${MAX_COMPACTION_INSTRUCTIONS} characters`,
      );
    }
  }
  if (body["context_management"] !== undefined && body["context_management"] !== null) {
    return invalid("`compaction` cannot be combined with `context_management` on one request");
  }
  if (Array.isArray(body["stop_sequences"]) && body["stop_sequences"].length > 0) {
    return invalid("stop_sequences: not supported on a compaction request");
  }
  const choice = body["tool_choice"];
  if (isRecord(choice) && (choice["type"] === "any" || choice["type"] === "tool")) {
    return invalid(
      `tool_choice: type "${String(choice["type"])}" is not supported on a compaction request`,
    );
  }
  if (isRecord(body["output_config"]) && body["output_config"]["format"] != null) {
    return invalid("output_config.format: not supported on a compaction request");
  }
  return undefined;
}

/** What is wrong with the messages a compaction request summarizes, or `undefined`. */
function summarizedMessagesProblem(messages: readonly WireMessage[]): ApiProblem | undefined {
  const conversational = messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role === "user" || message.role === "assistant");
  if (!conversational.some(({ message }) => blocksOf(message).length > 0)) {
    return invalid(
      "messages: there is nothing to summarize: send at least one `user` or `assistant` message",
      "compaction_nothing_to_summarize",
    );
  }
  const last = conversational.at(-1)!;
  if (
    last.message.role === "assistant" &&
    blocksOf(last.message).some((block) => isRecord(block) && block["type"] === "tool_use")
  ) {
    return invalid(
      `messages.${last.index}: the last \`assistant\` turn ends in a tool call with no result yet: send its tool results, then compact`,
      "compaction_incomplete_turn",
    );
  }
  return undefined;
}

/** Every `compaction` block of the messages, with its position. */
function compactionBlocks(messages: readonly WireMessage[]): [number, number, Block][] {
  const found: [number, number, Block][] = [];
  messages.forEach((message, messageIndex) => {
    blocksOf(message).forEach((block, blockIndex) => {
      if (isRecord(block) && block["type"] === "compaction")
        found.push([messageIndex, blockIndex, block]);
    });
  });
  return found;
}

/** What is wrong with the `compaction` blocks a request carries, or `undefined`. */
function compactionBlocksProblem(
  messages: readonly WireMessage[],
  beta: boolean,
): ApiProblem | undefined {
  const blocks = compactionBlocks(messages);
  if (!beta) {
    const signed = blocks.find(
      ([, , block]) => readCompactionBlock(block).kind !== "signature_invalid",
    );
    if (signed === undefined) return undefined;
    return invalid(
      `messages.${signed[0]}.content.${signed[1]}: 'compaction' is not one of the expected content block types`,
    );
  }
  if (blocks.length === 0) return undefined;
  if (blocks.length > 1) {
    return invalid(
      "A request can carry only one `compaction` block: send exactly one, the newest.",
      "compaction_block_ambiguous",
    );
  }
  const [messageIndex, blockIndex, block] = blocks[0]!;
  const where = `messages.${messageIndex}.content.${blockIndex}`;
  if (messageIndex !== 0 || blockIndex !== 0) {
    return invalid(
      `${where}: the \`compaction\` block must be sent first, in place of the messages it summarizes; remove those messages`,
      "compaction_block_misplaced",
    );
  }
  const extra = Object.keys(block).find((key) => !BLOCK_FIELDS.has(key));
  if (extra !== undefined) {
    return invalid(`${where}.compaction.${extra}: Extra inputs are not permitted`);
  }
  const reading = readCompactionBlock(block);
  if (reading.kind === "signature_invalid") {
    return invalid(
      `${where}: the \`compaction\` block's \`signature\` is invalid: send the block exactly as it was returned`,
      "compaction_signature_invalid",
    );
  }
  if (reading.kind === "content_mismatch") {
    return invalid(
      `${where}: the \`compaction\` block's \`content\` does not match its \`signature\`: send the block exactly as it was returned`,
      "compaction_content_mismatch",
    );
  }
  return undefined;
}

/**
 * The 400 the API answers a request with, compaction-wise (the request's parameters, the
 * messages it summarizes, the blocks it carries), or `undefined` when it passes.
 */
export function compactionProblem(request: RuleRequest): ApiProblem | undefined {
  const body = isRecord(request.body) ? request.body : {};
  const beta = request.betas.includes(COMPACTION_BETA);
  const messages = messagesOf(body);
  if (isCompactionRequest(body)) {
    const problem = compactionParameterProblem(body, beta) ?? summarizedMessagesProblem(messages);
    if (problem !== undefined) return problem;
  }
  return compactionBlocksProblem(messages, beta);
}

/** The summary the loopback model writes: what it summarized, and the user's first request. */
export function defaultSummary(body: unknown): string {
  const messages = messagesOf(body);
  const first = messages.find((message) => message.role === "user");
  const text = blocksOf(first)
    .filter(
      (block): block is { type: "text"; text: string } =>
        isRecord(block) && block["type"] === "text",
    )
    .map((block) => block.text)
    .join(" ")
    .slice(0, 160);
  const instructions =
    isRecord(body) && isRecord(body["compaction"]) ? body["compaction"]["instructions"] : undefined;
  const following =
    typeof instructions === "string" && instructions.trim() !== ""
      ? ` Written following the instructions "${instructions.trim().slice(0, 60)}".`
      : "";
  return `Summary of ${messages.length} messages: the user asked "${text}".${following}`;
}
