import type { LanguageModelUsage, ModelMessage } from "ai";
import { type CompactionResult, conversationChanged } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import {
  backToModel,
  type CheckedCompaction,
  type CompactModelMessagesOptions,
  checkCompaction,
  compactIfDue,
} from "./compact-model-messages.js";
import { convertModelMessages } from "./model-messages.js";
import { contextTokens, usageFromAiSdk } from "./usage.js";

/** Options of {@link compactionPrepareStep}. */
export interface CompactionPrepareStepOptions
  extends Omit<CompactModelMessagesOptions, "contextUsed" | "signal"> {
  /** Told of each compaction applied, with the step it was applied before. @default none */
  onCompaction?: (event: PrepareStepCompaction) => void;
  /**
   * Told when the compactor failed (a summarizer's `CompactionError`): the step then goes out
   * with the history as it was, as `maybeCompact` does. @default none (the failure is dropped)
   */
  onError?: (error: unknown) => void;
}

/** A compaction {@link compactionPrepareStep} applied. */
export interface PrepareStepCompaction {
  /** The step it was applied before. */
  stepNumber: number;
  /** What the compactor reported. */
  result: CompactionResult;
  /** The context the decision was taken on. */
  contextUsed: number;
  /** Messages before and after. */
  messagesBefore: number;
  messagesAfter: number;
}

/** What {@link compactionPrepareStep}'s function reads of `prepareStep`'s argument. */
export interface PrepareStepInput {
  steps: readonly { usage: LanguageModelUsage }[];
  stepNumber: number;
  messages: ModelMessage[];
  abortSignal?: AbortSignal;
}

/** What the function gives back: `messages` once the history was compacted, else nothing. */
export interface PrepareStepOutput {
  messages?: ModelMessage[];
}

/** What one `generateText`/`streamText` call's steps have in common: the history as last sent. */
interface History {
  /** The SDK's messages it stands for (the SDK appends to them each step). */
  input: readonly ModelMessage[];
  /** Those as ours, compacted when a compaction was applied. */
  ours: readonly Message[];
  /** For each of `ours`, the SDK message it came from, unchanged (`undefined`: made here). */
  sources: readonly (ModelMessage | undefined)[];
  /** What was sent; `undefined` while nothing was compacted (the SDK's own messages went). */
  sent: ModelMessage[] | undefined;
}

function startsWith(values: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (prefix.length > values.length) return false;
  for (let index = 0; index < prefix.length; index += 1)
    if (values[index] !== prefix[index]) return false;
  return true;
}

/**
 * A `prepareStep` for `generateText`, `streamText` and `Agent` loops that compacts between
 * steps. The AI SDK hands every step the full, uncompacted history; this one remembers what it
 * sent, so each step converts only the messages added since, judges the context on the last
 * step's usage (cache reads and writes included) plus an estimate of the tool results after
 * it, and, once it has compacted, sends the compacted history with the new messages after
 * it: append-only between compactions, so the prompt cache stays warm. One function per loop
 * (`generateText` call); a loop it has not seen starts afresh.
 *
 * @example
 * const result = await generateText({
 *   model, tools, messages, stopWhen: stepCountIs(50),
 *   prepareStep: compactionPrepareStep({ contextLimit: 200_000 }),
 * });
 * @throws {ValidationError} when an option is invalid (at once) or a message is malformed.
 */
export function compactionPrepareStep(
  options: CompactionPrepareStepOptions,
): (input: PrepareStepInput) => Promise<PrepareStepOutput> {
  const checked = checkCompaction(options, "compactionPrepareStep options");
  let history: History | undefined;
  return async (input) => {
    const { messages } = input;
    const known =
      history !== undefined && startsWith(messages, history.input) ? history : undefined;
    const from = known?.input.length ?? 0;
    // Ids are positions in the step's messages, which only grow between compactions.
    const turn = known?.ours.at(-1)?.turnId;
    const converted = convertModelMessages(messages.slice(from), {}, turn, from);
    const added = converted.messages;
    const conversation = known === undefined ? added : [...known.ours, ...added];
    // The whole conversation's estimate, when it is only what was converted just now.
    const estimate = known === undefined ? converted.tokens : undefined;
    const contextUsed = measure(input, known, added, conversation, checked, estimate);
    let compacted: readonly Message[] = conversation;
    let result: CompactionResult | undefined;
    try {
      ({ conversation: compacted, result } = await compactIfDue(
        conversation,
        checked,
        contextUsed,
        input.abortSignal,
        estimate,
      ));
    } catch (error) {
      options.onError?.(error);
    }
    const changed = conversationChanged(conversation, compacted);
    if (!changed) compacted = conversation;
    if (changed && result !== undefined) {
      options.onCompaction?.({
        stepNumber: input.stepNumber,
        result,
        contextUsed,
        messagesBefore: conversation.length,
        messagesAfter: compacted.length,
      });
    }
    const fresh = messages.slice(from);
    const sources = known === undefined ? fresh : [...known.sources, ...fresh];
    let sent: ModelMessage[] | undefined;
    let kept = sources;
    if (changed || known?.sent !== undefined) {
      ({ messages: sent, sources: kept } = backToModel(compacted, conversation, sources));
    }
    history = { input: messages.slice(), ours: compacted, sources: kept, sent };
    return sent === undefined ? {} : { messages: sent };
  };
}

/**
 * The context of this step's request: the last step's usage (its prompt and reply) plus the
 * estimate of what came after the reply; the local estimate before any usage.
 */
function measure(
  input: PrepareStepInput,
  known: History | undefined,
  added: readonly Message[],
  conversation: readonly Message[],
  checked: CheckedCompaction,
  estimate: number | undefined,
): number {
  const usage = usageFromAiSdk(input.steps.at(-1)?.usage);
  if (usage === undefined || known === undefined) {
    return (estimate ?? estimateTokens(conversation)) + checked.overheadTokens;
  }
  // The reply is in the usage's output tokens; what follows it (tool results) is not.
  const after = added.filter((message) => message.role !== "assistant");
  return contextTokens(usage) + estimateTokens(after);
}
