import {
  bindingAt,
  fingerprint,
  isThinkingBlock,
  readToken,
  type ThinkingBlockType,
} from "./binding.js";
import { blocksOf, bodyOf, messagesOf } from "./wire.js";

/**
 * The prefix check on the thinking blocks a request sends back, in request order: each block's
 * signature read, its binding (`binding.ts`) compared with the request's prefix now, and the
 * failure worded as the API words it. `judgeThinking` (`thinking.ts`) decides what a failure
 * costs: a 400, a dropped block, or nothing.
 */

/** The beta that adds `thinking.block_binding` and the response's `input_transformations`. */
export const THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01";

/** Why a thinking block sent back was not accepted. */
export type ThinkingFailureReason =
  /** Tampered or malformed: always a 400, whatever `prefix_mismatch_behavior` says. */
  | "signature_invalid"
  /** Written by a model this one cannot read: dropped without an error. */
  | "model_binding_mismatch"
  /** Something before the block changed since the block was produced. */
  | "prefix_binding_mismatch";

/** What changed before a block that fails the prefix check. */
export type ThinkingPrefixChange = "system" | "tools" | "messages" | "earlier_thinking";

/** One thinking block that fails a check. */
export interface ThinkingFailure {
  /** `messages.{i}.content.{j}`, as the API's errors and `input_transformations` write it. */
  path: string;
  messageIndex: number;
  blockIndex: number;
  type: ThinkingBlockType;
  reason: ThinkingFailureReason;
  /** For a prefix mismatch: the first part of the prefix that differs. */
  changed?: ThinkingPrefixChange;
  /** The 400's message in the API's words (for a prefix mismatch, as sent with the beta header). */
  message: string;
}

const CHANGED: Record<ThinkingPrefixChange, string> = {
  system: "The `system` prompt differs from when the block was created.",
  tools: "The `tools` list differs from when the block was created.",
  messages: "A message before the block differs from when the block was created.",
  earlier_thinking: "A thinking block before it was left out or moved.",
};

/** The 400's message for a failing block, in the API's words. */
export function failureMessage(
  path: string,
  type: ThinkingBlockType,
  reason: ThinkingFailureReason,
  changed?: ThinkingPrefixChange,
  betaSent = true,
): string {
  const field = type === "thinking" ? "`signature` in `thinking`" : "`data` in `redacted_thinking`";
  const invalid = `${path}: Invalid ${field} block`;
  if (reason !== "prefix_binding_mismatch") return invalid;
  const requires = betaSent
    ? ""
    : ` That setting requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`;
  return `${invalid}. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".${requires}${changed ? ` ${CHANGED[changed]}` : ""}`;
}

/** What the walk over a request's thinking blocks finds. */
export interface Analysis {
  failures: ThinkingFailure[];
  /** The last block kept: what the model is shown last. */
  previous: string | null;
}

/**
 * Walks the thinking blocks in request order. A block passes when its signature is ours and
 * intact, its prefix hashes match, and it records the last block kept before it (or nothing
 * before it was kept: a leading run was removed). With `showMismatched` (the check not
 * enforced) a mismatched block is still shown, so it counts as kept.
 */
export function analyze(body: unknown, showMismatched = false): Analysis {
  const request = bodyOf(body);
  const messages = messagesOf(request);
  const failures: ThinkingFailure[] = [];
  let previous: string | null = null;
  for (const [messageIndex, message] of messages.entries()) {
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (!isThinkingBlock(block)) continue;
      const read = readToken(block);
      const now = bindingAt(request, messages, [messageIndex, blockIndex]);
      const changed: ThinkingPrefixChange | undefined =
        read.kind !== "ours"
          ? undefined
          : read.binding.s !== now.s
            ? "system"
            : read.binding.t !== now.t
              ? "tools"
              : read.binding.m !== now.m
                ? "messages"
                : previous !== null && read.binding.p !== previous
                  ? "earlier_thinking"
                  : undefined;
      const reason: ThinkingFailureReason | undefined =
        read.kind === "tampered"
          ? "signature_invalid"
          : read.kind === "foreign"
            ? "model_binding_mismatch"
            : changed === undefined
              ? undefined
              : "prefix_binding_mismatch";
      if (reason !== undefined) {
        const path = `messages.${messageIndex}.content.${blockIndex}`;
        failures.push({
          path,
          messageIndex,
          blockIndex,
          type: block.type,
          reason,
          ...(changed ? { changed } : {}),
          message: failureMessage(path, block.type, reason, changed),
        });
      }
      if (reason === undefined || (reason === "prefix_binding_mismatch" && showMismatched)) {
        previous = fingerprint(block);
      }
    }
  }
  return { failures, previous };
}

/**
 * The thinking blocks of a request body that fail a check, in request order: tampered
 * signatures (`signature_invalid`), blocks the model cannot read (`model_binding_mismatch`)
 * and blocks whose prefix changed (`prefix_binding_mismatch`: with `"drop_block"`, exactly
 * the blocks the API drops). Empty when every block sent back is valid.
 *
 * @example
 * const failures = checkThinkingPrefix({ system, tools, messages });
 * if (failures.length > 0) throw new Error(failures[0].message);
 */
export function checkThinkingPrefix(body: unknown): ThinkingFailure[] {
  return analyze(body).failures;
}
