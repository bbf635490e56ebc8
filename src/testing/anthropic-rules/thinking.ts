import {
  bindingAt,
  fingerprint,
  isThinkingBlock,
  readToken,
  type ThinkingBlockType,
  token,
} from "./binding.js";
import {
  analyze,
  checkThinkingPrefix,
  failureMessage,
  THINKING_BINDING_BETA,
  type ThinkingFailure,
} from "./prefix-check.js";
import {
  type Block,
  type Body,
  blocksOf,
  bodyOf,
  isRecord,
  messagesOf,
  type RuleRequest,
  toBase64,
  type WireMessage,
} from "./wire.js";

/**
 * Preserved thinking, as the Messages API enforces it: what the server does with the
 * `thinking` / `redacted_thinking` blocks sent back ({@link judgeThinking}), and how it signs
 * the ones it returns ({@link signReplyContent}). The same checks run offline, without HTTP,
 * through `checkThinkingPrefix` (`prefix-check.ts`) and {@link thinkingProblems}.
 *
 * The rules, settled from the platform docs (read 2026-12 through stored mirrors):
 * - Preserved thinking: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
 * - Prefix checks: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks
 * - Fix a thinking block bound to a different conversation:
 *   https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
 * - Thinking in tool workflows: https://platform.claude.com/docs/en/build-with-claude/thinking-tool-workflows
 * - The SDK's own types (`@anthropic-ai/sdk` 1.14, `resources/beta/messages`).
 *
 * 1. What a block is bound to: see `binding.ts`.
 * 2. Valid: appending messages; "Remove `thinking` blocks from the start of the history" (a
 *    leading run, oldest first), so an assistant turn whose thinking was all removed is valid
 *    when every thinking block before it was removed too; removing every thinking block after
 *    an edit (nothing left to fail; the FAQ's fix for client-side compaction: "Strip `thinking`
 *    and `redacted_thinking` blocks from the turns you carry across"); an assistant message
 *    without thinking ("an appended message like any other").
 * 3. Invalid: "Edit, reorder, or delete any earlier `user`, `assistant`, or `system` message";
 *    "Change the top-level `system` string or blocks"; "Add, remove, rename, or edit a tool in
 *    `tools`"; "Remove a `thinking` block from the middle of the history and keep later ones:
 *    Invalid for every later thinking block" ("It also fails if a thinking block between others
 *    was left out or moved"). "If the prefix differs from what you sent when the block was
 *    produced, that block and every later thinking block are invalid." Every later block means
 *    every block produced before the edit: "An edit only invalidates thinking already after it";
 *    thinking the model produces after a drop "follows the summary and stays valid". So a block
 *    is checked against the last block the request keeps before it, and a reply's blocks
 *    record the last block the model was shown.
 * 4. What happens. `thinking.block_binding.prefix_mismatch_behavior`: `"error"` (default) "the
 *    API rejects the request with a 400 `invalid_request_error` that names the first failing
 *    block", in these words: "messages.1.content.0: Invalid `signature` in `thinking` block.
 *    The block is bound to a different conversation. Remove the block, or set
 *    `thinking.block_binding.prefix_mismatch_behavior` to "drop_block"." Without the beta
 *    header it continues "That setting requires the `thinking-binding-controls-2026-08-01`
 *    value in the `anthropic-beta` header." and "usually ends with a sentence naming what
 *    changed". `"drop_block"`: "the API drops each failing block and every thinking block after
 *    it, and the request succeeds", each listed in `input_transformations` as `{ type:
 *    "thinking_dropped", path: "messages.i.content.j", reason: "prefix_binding_mismatch" }`.
 *    The field and the array need the beta header `thinking-binding-controls-2026-08-01`
 *    ("Sending it without the beta header returns a 400 error"); with the header every
 *    response carries the array, `[]` when nothing was dropped. Accounts created before
 *    2026-08-31 are checked only when the request sets the field (`"opt-in"` mode here):
 *    otherwise the blocks are shown all the same and listed as `thinking_mismatch_allowed`.
 *    "A tampered or undecryptable signature is a different failure. It always returns a 400
 *    (Invalid `signature` in `thinking` block with no sentence about the conversation)."
 *    A block the model cannot read (here: a signature this server did not write) is dropped
 *    "without an error", reported as `model_binding_mismatch`. The token counting endpoint
 *    "runs the same prefix check and returns the same 400". `redacted_thinking` blocks carry
 *    their binding in `data` and are checked the same way.
 * 5. The tool loop. "Pass thinking blocks back complete and unmodified: when you return a tool
 *    result, the thinking blocks from the assistant message must come back with it" ("The
 *    round-trip rules are identical" for adaptive and manual thinking). On the wire: "When
 *    `thinking` is enabled, a final `assistant` message must start with a thinking block
 *    (preceeding the lastmost set of `tool_use` and `tool_result` blocks)". So while thinking
 *    is on and the request answers the last assistant message's `tool_use` blocks, that message
 *    must start with a `thinking` or `redacted_thinking` block (checked as sent, before drops).
 *    The server's model thinks first on every reply while thinking is on, so a missing block
 *    there was removed by the client.
 */

/** How the server runs the prefix check (an account's age, or a model without the check). */
export type PreservedThinkingMode =
  /** Every request is checked; `"error"` unless the request says `"drop_block"`. */
  | "enforced"
  /** Only requests that set `prefix_mismatch_behavior` (an account created before 2026-08-31). */
  | "opt-in"
  /** Nothing is checked (a model without preserved thinking). */
  | "off";

/** One entry of a response's `input_transformations`. */
export interface InputTransformation {
  type: "thinking_dropped" | "thinking_mismatch_allowed";
  path: string;
  reason: "model_binding_mismatch" | "prefix_binding_mismatch";
}

/** Options of the checks. */
export interface ThinkingRuleOptions {
  /** @default "enforced" */
  mode?: PreservedThinkingMode;
  /** Whether a request that sets no `thinking` thinks (current models do). @default false */
  thinkByDefault?: boolean;
}

/** What the server does with a request, thinking-wise. */
export type ThinkingVerdict =
  | { ok: false; message: string }
  | {
      ok: true;
      /** Blocks removed before the model reads the prompt. */
      dropped: ThinkingFailure[];
      /** The response's `input_transformations`; only with the beta header. */
      inputTransformations?: InputTransformation[];
      /** The last thinking block the model is shown: what a reply's first block records. */
      previous: string | null;
      /** Whether the model thinks on this request. */
      thinking: boolean;
    };

function thinkingConfig(body: Body): Record<string, unknown> | undefined {
  return isRecord(body.thinking) ? body.thinking : undefined;
}

/** Whether the model thinks on this request. */
export function thinksOn(body: unknown, thinkByDefault = false): boolean {
  const config = thinkingConfig((isRecord(body) ? body : {}) as Body);
  if (config === undefined) return thinkByDefault;
  return config["type"] === "enabled" || config["type"] === "adaptive";
}

/**
 * Rule 5: while thinking is on and the request answers the last assistant message's
 * `tool_use` blocks, that message must start with a thinking block. The 400's message, or
 * `undefined` when the request passes.
 */
export function toolLoopThinkingProblem(
  body: unknown,
  options: Pick<ThinkingRuleOptions, "thinkByDefault"> = {},
): string | undefined {
  if (!thinksOn(body, options.thinkByDefault)) return undefined;
  const messages = messagesOf((isRecord(body) ? body : {}) as Body);
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role === "system") last -= 1;
  const answer = messages[last];
  if (answer?.role !== "user") return undefined;
  if (!blocksOf(answer).some((block) => isRecord(block) && block["type"] === "tool_result")) {
    return undefined;
  }
  let index = last - 1;
  while (index >= 0 && messages[index]?.role === "system") index -= 1;
  const call = messages[index];
  if (call?.role !== "assistant") return undefined;
  const blocks = blocksOf(call);
  if (!blocks.some((block) => isRecord(block) && block["type"] === "tool_use")) return undefined;
  const first = blocks[0];
  if (isThinkingBlock(first)) return undefined;
  const found = isRecord(first) ? String(first["type"]) : "nothing";
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

/**
 * What the server does with a request's thinking: the 400 it answers, or the blocks it drops
 * and the `input_transformations` it reports. `endpoint: "count_tokens"` runs the prefix
 * check only (the tool-loop rule is a `/v1/messages` rule).
 */
export function judgeThinking(
  request: RuleRequest,
  options: ThinkingRuleOptions & { endpoint?: "messages" | "count_tokens" } = {},
): ThinkingVerdict {
  const body = bodyOf(request.body);
  const mode = options.mode ?? "enforced";
  const beta = request.betas.includes(THINKING_BINDING_BETA);
  const binding = thinkingConfig(body)?.["block_binding"];
  if (binding !== undefined && binding !== null && !beta) {
    return {
      ok: false,
      message: `thinking.block_binding: This field requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`,
    };
  }
  const behavior = isRecord(binding) ? binding["prefix_mismatch_behavior"] : undefined;
  const thinking = thinksOn(body, options.thinkByDefault);
  if (mode === "off") return { ok: true, dropped: [], previous: analyze(body).previous, thinking };
  const enforced = mode === "enforced" || (behavior !== undefined && behavior !== null);
  const { failures, previous } = analyze(body, !enforced);
  const dropped: ThinkingFailure[] = [];
  const transformations: InputTransformation[] = [];
  for (const failure of failures) {
    if (failure.reason === "signature_invalid") return { ok: false, message: failure.message };
    if (failure.reason === "prefix_binding_mismatch" && !enforced) {
      transformations.push({
        type: "thinking_mismatch_allowed",
        path: failure.path,
        reason: failure.reason,
      });
      continue;
    }
    if (failure.reason === "prefix_binding_mismatch" && behavior !== "drop_block") {
      const { path, type, reason, changed } = failure;
      return { ok: false, message: failureMessage(path, type, reason, changed, beta) };
    }
    dropped.push(failure);
    transformations.push({ type: "thinking_dropped", path: failure.path, reason: failure.reason });
  }
  if (options.endpoint !== "count_tokens") {
    const problem = toolLoopThinkingProblem(body, options);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  return {
    ok: true,
    dropped,
    ...(beta ? { inputTransformations: transformations } : {}),
    previous,
    thinking,
  };
}

/**
 * Signs the thinking blocks of a reply to `body`: each `thinking` block without a
 * `signature` and each `redacted_thinking` block without `data` gets one, bound to the
 * request's `system`, tools and messages, the reply's blocks before it, and the block before
 * it (`previous`: the last block the model was shown; by default the last block of the
 * request that passes the check). Blocks already signed are left as they are.
 */
export function signReplyContent(
  body: unknown,
  content: readonly Record<string, unknown>[],
  previous: string | null = analyze(body).previous,
): Record<string, unknown>[] {
  const request = (isRecord(body) ? body : {}) as Body;
  const messages = [
    ...messagesOf(request),
    { role: "assistant", content: [...content] } satisfies WireMessage,
  ];
  let before = previous;
  return content.map((block, index) => {
    if (!isThinkingBlock(block)) return block;
    let signed: Block = block;
    if (block.type === "thinking" && typeof block["signature"] !== "string") {
      const thinking = typeof block["thinking"] === "string" ? block["thinking"] : "";
      const binding = { ...bindingAt(request, messages, [messages.length - 1, index]), p: before };
      signed = { ...block, thinking, signature: token("thinking", binding, thinking) };
    } else if (block.type === "redacted_thinking" && typeof block["data"] !== "string") {
      const hidden = typeof block["hidden"] === "string" ? block["hidden"] : "";
      const binding = {
        ...bindingAt(request, messages, [messages.length - 1, index]),
        p: before,
        x: toBase64(hidden),
      };
      signed = { type: "redacted_thinking", data: token("redacted_thinking", binding, "") };
    }
    if (readToken(signed as Block & { type: ThinkingBlockType }).kind === "ours") {
      before = fingerprint(signed);
    }
    return signed;
  });
}

/**
 * The 400 messages the API would answer a request body with, thinking-wise, with
 * `prefix_mismatch_behavior` left at `"error"` (empty when it would accept it): the same
 * check as the server's, offline. `"drop_block"` requests never fail the prefix check; use
 * `checkThinkingPrefix` to see what they drop.
 */
export function thinkingProblems(
  body: unknown,
  options: Pick<ThinkingRuleOptions, "thinkByDefault"> = {},
): string[] {
  const problems: string[] = [];
  const fatal = checkThinkingPrefix(body).find(
    (failure) => failure.reason !== "model_binding_mismatch",
  );
  if (fatal !== undefined) problems.push(fatal.message);
  const loop = toolLoopThinkingProblem(body, options);
  if (loop !== undefined) problems.push(loop);
  return problems;
}
