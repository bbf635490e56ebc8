import type { ModelMessage } from "ai";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import {
  type AsyncCompactor,
  type CompactionResult,
  type Compactor,
  compactorProblem,
  conversationChanged,
  emptyCompactionResult,
  runCompactor,
} from "../core/compactor.js";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { CallNames } from "./call-names.js";
import {
  blockToPart,
  isToolSide,
  messageOptions,
  messageToModel,
  type ToolNames,
} from "./message-out.js";
import { convertModelMessages } from "./model-messages.js";
import { toolResultToPart } from "./parts-out.js";

/** Options of {@link compactModelMessages}. */
export interface CompactModelMessagesOptions {
  /** The model's context window in tokens. */
  contextLimit: number;
  /**
   * What compacts: any `Compactor` (run with `compact`) or `AsyncCompactor` (`compactAsync`:
   * an `LLMCompactor` or `HybridCompactor` on an {@link AiSdkLlmClient}, …).
   * @default a ThresholdCompactor as the session's default (mask old tool results to 40%)
   */
  compactor?: Compactor | AsyncCompactor;
  /**
   * The context the conversation takes, when known (the last response's usage plus what came
   * after). @default the local estimate of the messages plus `overheadTokens`
   */
  contextUsed?: number;
  /** Tokens the request holds besides its messages (system prompt, tools). @default 0 */
  overheadTokens?: number;
  /** Compact summaries of tool results, by tool call id. @default none */
  summaries?: ReadonlyMap<string, string>;
  /** Cancels an asynchronous compactor. @default none */
  signal?: AbortSignal;
}

/** What {@link compactModelMessages} returns. */
export interface CompactedModelMessages {
  /** The messages to send: the input array itself when nothing changed. */
  messages: ModelMessage[];
  /** Whether the messages changed. */
  compacted: boolean;
  /** What the compactor reported. */
  result: CompactionResult;
  /** The context the decision was taken on. */
  contextUsed: number;
}

/** The options every compacting helper of this entry takes, checked once. */
export interface CheckedCompaction {
  contextLimit: number;
  compactor: Compactor;
  overheadTokens: number;
  summaries: ReadonlyMap<string, string>;
}

/** The session's default masking: what a `new AgentSession({ contextLimit })` runs. */
export function defaultCompactor(): Compactor {
  return new ThresholdCompactor({
    toolCompaction: "summarize_or_redact",
    keepRecentToolUses: 5,
    targetUtilization: 0.4,
    clearToolInputs: true,
    keepPathMentions: true,
  });
}

/** Checks the shared options (a `ValidationError` naming each bad one). */
export function checkCompaction(
  options: CompactModelMessagesOptions | undefined,
  subject: string,
): CheckedCompaction {
  const issues: ValidationIssue[] = [];
  const { contextLimit, compactor, overheadTokens, summaries } = options ?? ({} as never);
  if (typeof contextLimit !== "number" || !Number.isFinite(contextLimit) || contextLimit <= 0)
    issues.push({ path: ["contextLimit"], message: "must be a finite number above 0" });
  const problem = compactor === undefined ? undefined : compactorProblem(compactor);
  if (problem !== undefined) issues.push({ path: ["compactor"], message: problem });
  if (overheadTokens !== undefined && !(Number.isFinite(overheadTokens) && overheadTokens >= 0))
    issues.push({ path: ["overheadTokens"], message: "must be a finite number, 0 or more" });
  if (summaries !== undefined && !(summaries instanceof Map))
    issues.push({ path: ["summaries"], message: "must be a Map of tool call id to summary" });
  if (issues.length > 0) throw new ValidationError(subject, issues);
  return {
    contextLimit,
    compactor: compactor ?? defaultCompactor(),
    overheadTokens: overheadTokens ?? 0,
    summaries: summaries ?? new Map(),
  };
}

/**
 * Runs the compactor if its threshold is crossed; the conversation as it was otherwise.
 * `estimate`, the conversation's token estimate when already worked out, is handed on so a
 * built-in compactor does not estimate it again.
 */
export async function compactIfDue(
  conversation: readonly Message[],
  checked: CheckedCompaction,
  contextUsed: number,
  signal: AbortSignal | undefined,
  estimate?: number,
): Promise<{ conversation: readonly Message[]; result: CompactionResult }> {
  if (!checked.compactor.shouldCompact(contextUsed, checked.contextLimit)) {
    return { conversation, result: emptyCompactionResult() };
  }
  const options = {
    contextLimit: checked.contextLimit,
    contextUsed,
    ...(signal === undefined ? {} : { signal }),
  };
  return runCompactor(checked.compactor, conversation, checked.summaries, options, estimate);
}

/** AI SDK messages, and for each of ours the message it came from (`undefined`: made here). */
export interface ModelMessagesBack {
  messages: ModelMessage[];
  sources: (ModelMessage | undefined)[];
}

/**
 * Our messages as AI SDK messages, giving back the very `ModelMessage` a message came from
 * while it is unchanged: `ours[index]` came from `sources[index]` (when defined). Compaction
 * keeps unchanged messages in order, so one forward pointer finds each; a lookup table only
 * when it loses track.
 */
export function backToModel(
  conversation: readonly Message[],
  ours: readonly Message[],
  sources: readonly (ModelMessage | undefined)[],
): ModelMessagesBack {
  const messages: ModelMessage[] = [];
  const kept: (ModelMessage | undefined)[] = new Array(conversation.length);
  const names = new CallNames(conversation);
  let pointer = 0;
  let byMessage: Map<Message, number> | undefined;
  for (let position = 0; position < conversation.length; position += 1) {
    const message = conversation[position]!;
    const here = ours[pointer];
    names.position = position;
    if (conversation[position - 1]?.role === "assistant") names.lastAssistant = position - 1;
    if (here !== message && here?.id === message.id) {
      // Changed in place (a masked result, a cleared input): patched from its source when
      // some of its parts are unchanged, or when it had options of its own (a compactor's new
      // block may not carry them); a message of one block is converted anew, without reading
      // its source again.
      const source = sources[pointer];
      pointer += 1;
      const patch =
        source === undefined || (here.content.length < 2 && messageOptions(here) === undefined)
          ? undefined
          : patched(message, here, source, names);
      if (patch === undefined) messageToModel(message, names, messages);
      else messages.push(patch);
      continue;
    }
    let index = here === message ? pointer : -1;
    if (index === -1) {
      byMessage ??= new Map(ours.map((known, at) => [known, at]));
      index = byMessage.get(message) ?? -1;
    }
    const source = index === -1 ? undefined : sources[index];
    if (index !== -1) pointer = index + 1;
    if (source === undefined) {
      messageToModel(message, names, messages);
      continue;
    }
    kept[position] = source;
    messages.push(source);
  }
  return { messages, sources: kept };
}

/**
 * A changed message as its source with only the changed parts converted again: when the
 * source was written as parts, one per block, and the blocks stayed in place (masking and
 * input clearing replace blocks, they do not move them). `undefined` otherwise. A changed
 * result keeps the tool name its source part gave.
 */
function patched(
  message: Message,
  original: Message,
  source: ModelMessage,
  names: ToolNames,
): ModelMessage | undefined {
  const blocks = message.content;
  const before = original.content;
  if (source.role === "system" || typeof source.content === "string") return undefined;
  if (blocks.length !== before.length || source.content.length !== blocks.length) return undefined;
  const parts: unknown[] = source.content.slice();
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index]!;
    if (block === before[index]) continue;
    if ((source.role === "tool") !== isToolSide(block)) return undefined;
    const part = parts[index] as { type?: unknown; toolCallId?: unknown; toolName?: unknown };
    parts[index] =
      block.type === "tool_result" &&
      part.type === "tool-result" &&
      part.toolCallId === block.toolUseId &&
      typeof part.toolName === "string"
        ? toolResultToPart(block, names, part.toolName)
        : blockToPart(block, names);
  }
  return { ...source, content: parts } as ModelMessage;
}

/**
 * Compacts a whole AI SDK conversation in one call, as a stateless server does for each
 * request it gets (an HTTP handler, a `prepareStep` without memory): converts it, runs the
 * compactor if its threshold is crossed, and converts back, handing unchanged messages back as
 * the same objects. Resolves to the input array itself when nothing changed.
 *
 * @example
 * const { messages: compacted } = await compactModelMessages(messages, { contextLimit: 200_000 });
 * const result = await generateText({ model, messages: compacted });
 * @throws {ValidationError} for bad options or malformed messages; a failing asynchronous
 * compactor rejects with its `CompactionError`.
 */
export async function compactModelMessages(
  messages: readonly ModelMessage[],
  options: CompactModelMessagesOptions,
): Promise<CompactedModelMessages> {
  const checked = checkCompaction(options, "compactModelMessages options");
  // Estimated once, while converting, for the decision and the compactor's report alike.
  // Ids are positions in `messages`: the conversation lives for this call only.
  const { messages: ours, tokens } = convertModelMessages(messages, {}, undefined, 0);
  const contextUsed = options.contextUsed ?? tokens + checked.overheadTokens;
  const { conversation, result } = await compactIfDue(
    ours,
    checked,
    contextUsed,
    options.signal,
    tokens,
  );
  if (!conversationChanged(ours, conversation)) {
    return { messages: messages as ModelMessage[], compacted: false, result, contextUsed };
  }
  return {
    messages: backToModel(conversation, ours, messages).messages,
    compacted: true,
    result,
    contextUsed,
  };
}
