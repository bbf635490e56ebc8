import * as z from "zod/mini";
import {
  DEFAULT_THRESHOLD_COMPACTOR_OPTIONS,
  type ThresholdCompactorOptions,
  ThresholdCompactorOptionsSchema,
} from "../compactors/threshold-compactor.js";
import { parseOrThrow } from "../core/errors.js";
import { POSITIVE_INT_SCHEMA, positiveWholeNumber } from "../core/option-schemas.js";

/** The beta of server-side context editing: send it with `context_management`. */
export const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";

/** The `clear_tool_uses_20250919` edit: old tool results (and inputs) cleared by the API. */
export interface ClearToolUsesEdit {
  type: "clear_tool_uses_20250919";
  trigger?: { type: "input_tokens"; value: number };
  keep?: { type: "tool_uses"; value: number };
  clear_at_least?: { type: "input_tokens"; value: number };
  exclude_tools?: string[];
  clear_tool_inputs?: boolean | string[];
}

/** The `clear_thinking_20251015` edit: thinking of older assistant turns cleared by the API. */
export interface ClearThinkingEdit {
  type: "clear_thinking_20251015";
  keep?: { type: "thinking_turns"; value: number } | "all";
}

/** A request's `context_management`. */
export interface AnthropicContextManagement {
  edits: (ClearThinkingEdit | ClearToolUsesEdit)[];
}

/**
 * Options of {@link anthropicContextManagement}: the masking compactor's
 * ({@link ThresholdCompactorOptions}), the window they are ratios of, and thinking clearing.
 * `toolCompaction`, `keepRecentTurns` and `targetUtilization` are taken and ignored: the API
 * replaces a cleared result with its own placeholder, has no turns, and clears everything
 * eligible once triggered.
 */
export interface AnthropicContextManagementOptions extends Partial<ThresholdCompactorOptions> {
  /** The model's context window in tokens: the trigger is `threshold` of it. */
  contextLimit: number;
  /**
   * Also clear the thinking of older assistant turns (`clear_thinking_20251015`, listed first):
   * keep the thinking of this many most recent turns, or `"all"`. Server-side clearing never
   * invalidates thinking; it only changes what the model reads. @default false (not sent)
   */
  clearThinking?: { keepTurns: number | "all" } | false;
}

const OptionsSchema = z.extend(ThresholdCompactorOptionsSchema, {
  contextLimit: positiveWholeNumber("tokens"),
  clearThinking: z.exactOptional(
    z.union(
      [
        z.literal(false),
        z.strictObject({
          keepTurns: z.union([z.literal("all"), POSITIVE_INT_SCHEMA]),
        }),
      ],
      { error: 'must be false or { keepTurns: N | "all" }' },
    ),
  ),
});

/**
 * Server-side clearing from the masking compactor's options: a request's `context_management`
 * (send it with the {@link CONTEXT_MANAGEMENT_BETA} beta) whose `clear_tool_uses_20250919`
 * edit clears tool results once the prompt passes `threshold` of the window (`trigger`), keeps
 * the `keepRecentToolUses` most recent (`keep`, else the API's 3), clears only when
 * `clearAtLeast` tokens go (`clear_at_least`), never touches `excludeTools` (`exclude_tools`),
 * and with `clearToolInputs` clears their inputs too (`clear_tool_inputs`); `clearThinking`
 * adds `clear_thinking_20251015` first. The API edits what the model reads, not the
 * conversation: the session's history stays append-only, so its thinking stays valid and its
 * prompt cache warm up to the cleared part; the response's `context_management.applied_edits`
 * say what went (see `appendAnthropicResponse`).
 *
 * @example
 * const response = await client.beta.messages.create({
 *   model, max_tokens, messages: toAnthropicMessages(session.messages),
 *   betas: [CONTEXT_MANAGEMENT_BETA],
 *   context_management: anthropicContextManagement({ contextLimit: 200_000, keepRecentToolUses: 5 }),
 * });
 * @throws {ValidationError} when an option is invalid.
 */
export function anthropicContextManagement(
  options: AnthropicContextManagementOptions,
): AnthropicContextManagement {
  const parsed = parseOrThrow(OptionsSchema, options, "anthropicContextManagement options");
  const threshold = parsed.threshold ?? DEFAULT_THRESHOLD_COMPACTOR_OPTIONS.threshold;
  const clear: ClearToolUsesEdit = {
    type: "clear_tool_uses_20250919",
    trigger: {
      type: "input_tokens",
      value: Math.max(1, Math.floor(threshold * parsed.contextLimit)),
    },
  };
  if (typeof parsed.keepRecentToolUses === "number") {
    clear.keep = { type: "tool_uses", value: parsed.keepRecentToolUses };
  }
  if (parsed.clearAtLeast !== undefined && parsed.clearAtLeast > 0) {
    clear.clear_at_least = { type: "input_tokens", value: parsed.clearAtLeast };
  }
  if (parsed.excludeTools !== undefined && parsed.excludeTools.length > 0) {
    clear.exclude_tools = [...parsed.excludeTools];
  }
  const inputs = parsed.clearToolInputs;
  if (inputs === true || (Array.isArray(inputs) && inputs.length > 0)) {
    clear.clear_tool_inputs = inputs === true ? true : [...inputs];
  }
  const edits: AnthropicContextManagement["edits"] = [];
  if (parsed.clearThinking !== undefined && parsed.clearThinking !== false) {
    const { keepTurns } = parsed.clearThinking;
    edits.push({
      type: "clear_thinking_20251015",
      keep: keepTurns === "all" ? "all" : { type: "thinking_turns", value: keepTurns },
    });
  }
  edits.push(clear);
  return { edits };
}
