import {
  bindingAt,
  fingerprint,
  isThinkingBlock,
  readToken,
  type ThinkingBlockType,
  token,
} from "./binding.js";
import {
  type Block,
  type Body,
  blocksOf,
  bodyOf,
  isRecord,
  messagesOf,
  type RuleRequest,
  toBase64Url,
  type WireMessage,
} from "./wire.js";

/**
 * Preserved thinking as the stand-in enforces it, copied from the loopback server's rules
 * (`examples/support/thinking-rules.ts`, which sets out each rule with its source in the platform
 * docs): a `thinking`/`redacted_thinking` block sent back is valid only while `system`, the tools
 * and everything before it are as they were when the model wrote it; a failing block is a 400
 * naming it, or dropped and listed in `input_transformations` with
 * `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` (beta
 * `thinking-binding-controls-2026-08-01`); a tampered signature is always a 400; while thinking is
 * on, an assistant message whose tool calls the request answers must start with thinking.
 */

/** The beta that adds `thinking.block_binding` and the response's `input_transformations`. */
export const THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01";

/** How the server runs the prefix check (an account's age, or a model without the check). */
export type PreservedThinkingMode =
  /** Every request is checked; `"error"` unless the request says `"drop_block"`. */
  | "enforced"
  /** Only requests that set `prefix_mismatch_behavior` (an account created before 2026-08-31). */
  | "opt-in"
  /** Nothing is checked (a model without preserved thinking). */
  | "off";

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
const CHANGED: Record<ThinkingPrefixChange, string> = {
  system: "The `system` prompt differs from when the block was created.",
  tools: "The `tools` list differs from when the block was created.",
  messages: "A message before the block differs from when the block was created.",
  earlier_thinking: "A thinking block before it was left out or moved.",
};

function failureMessage(
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

interface Analysis {
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
function analyze(body: unknown, showMismatched = false): Analysis {
  const request = (isRecord(body) ? body : {}) as Body;
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

function thinkingConfig(body: Body): Record<string, unknown> | undefined {
  return isRecord(body.thinking) ? body.thinking : undefined;
}

/** Whether the model thinks on this request. */
export function thinksOn(body: unknown, thinkByDefault = false): boolean {
  const config = thinkingConfig((isRecord(body) ? body : {}) as Body);
  if (config === undefined) return thinkByDefault;
  return config.type === "enabled" || config.type === "adaptive";
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
  if (!blocksOf(answer).some((block) => isRecord(block) && block.type === "tool_result")) {
    return undefined;
  }
  let index = last - 1;
  while (index >= 0 && messages[index]?.role === "system") index -= 1;
  const call = messages[index];
  if (call?.role !== "assistant") return undefined;
  const blocks = blocksOf(call);
  if (!blocks.some((block) => isRecord(block) && block.type === "tool_use")) return undefined;
  const first = blocks[0];
  if (isThinkingBlock(first)) return undefined;
  const found = isRecord(first) ? String(first.type) : "nothing";
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
  const binding = thinkingConfig(body)?.block_binding;
  if (binding !== undefined && binding !== null && !beta) {
    return {
      ok: false,
      message: `thinking.block_binding: This field requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`,
    };
  }
  const behavior = isRecord(binding) ? binding.prefix_mismatch_behavior : undefined;
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
    if (block.type === "thinking" && typeof block.signature !== "string") {
      const thinking = typeof block.thinking === "string" ? block.thinking : "";
      const binding = { ...bindingAt(request, messages, [messages.length - 1, index]), p: before };
      signed = { ...block, thinking, signature: token("thinking", binding, thinking) };
    } else if (block.type === "redacted_thinking" && typeof block.data !== "string") {
      const hidden = typeof block.hidden === "string" ? block.hidden : "";
      const binding = {
        ...bindingAt(request, messages, [messages.length - 1, index]),
        p: before,
        x: toBase64Url(hidden),
      };
      signed = { type: "redacted_thinking", data: token("redacted_thinking", binding, "") };
    }
    if (readToken(signed as Block & { type: ThinkingBlockType }).kind === "ours") {
      before = fingerprint(signed);
    }
    return signed;
  });
}
