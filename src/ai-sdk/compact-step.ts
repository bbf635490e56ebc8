import type { ModelMessage } from "ai";
import type { ArchiveRecord } from "../core/archive-record.js";
import {
  type CompactionResult,
  conversationChanged,
  emptyCompactionResult,
} from "../core/compactor.js";
import type { CompactionError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateMessageTokens, estimateTokens } from "../core/message-memo.js";
import { contextTokens, type Usage } from "../core/usage.js";
import { messagesFrom } from "../session/compact-messages.js";
import type { StatelessCompaction, StatelessOutcome } from "../session/stateless-compaction.js";
import type { IntakeFacts } from "../session/stateless-intake.js";
import { backToModel, type MessageSource, ReadApart } from "./back-to-model.js";
import { withoutThinkingOverCompaction } from "./compacted-replies.js";
import { withDistinctCallIds } from "./distinct-call-ids.js";
import { convertModelMessages } from "./model-messages.js";

/**
 * What the steps of one loop (a `generateText` call's, a conversation a middleware has seen)
 * have in common: the history as last sent, so each step converts only what was added since
 * and sends the compacted history with the new messages after it (append-only between
 * compactions, so the prompt cache stays warm and thinking stays valid).
 */
export interface LoopHistory {
  /** The SDK's messages it stands for (the SDK appends to them each step). */
  input: readonly ModelMessage[];
  /** Those as ours, clamped and compacted as they were sent. */
  ours: readonly Message[];
  /** Their local estimate, once worked out (a conversation seen once never needs it). */
  tokens: number | undefined;
  /**
   * For each of `ours`, the SDK message it came from, unchanged (`undefined`: made here, or the
   * request of a message read apart: see {@link ReadApart}).
   */
  sources: readonly MessageSource[];
  /**
   * What was sent; `undefined` while nothing changed (the SDK's own messages went). A call id an
   * earlier, answered call had goes renamed (`withDistinctCallIds`): `ours` and `sources` keep
   * the SDK's ids, and each step renames the whole history again, the same way.
   */
  sent: ModelMessage[] | undefined;
  /**
   * Whether what was sent differs from the SDK's messages beyond renamed call ids (a
   * compaction, a clamp, at this step or before): thinking signed over it is stale on the
   * SDK's own history.
   */
  compacted: boolean;
}

/** One step to compact: the SDK's messages, and what is known of the ones before. */
export interface LoopStep {
  messages: readonly ModelMessage[];
  /** The history these messages continue (its `input` is a prefix of them), if any. */
  known: LoopHistory | undefined;
  /** The context the caller measured (`contextUsed`), when it did. */
  contextUsed?: number | undefined;
  /** The usage the model reported for the request `known` sent, when there is one. */
  usage?: Usage | undefined;
  /** Tokens of the request besides its messages. @default the compaction's `overheadTokens` */
  overheadTokens?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Told of a compactor's or the archive's failure: the last resort still fits the step in the
   * window (see {@link StatelessOutcome}'s `error`). @default the failure in the result's `error`
   */
  onError?: ((error: unknown) => void) | undefined;
}

/** A compaction a step applied. */
export interface StepCompaction {
  result: CompactionResult;
  contextUsed: number;
  messagesBefore: number;
  messagesAfter: number;
  thinkingBlocksDropped: number;
}

/** What a step sends, and the history to remember for the next. */
export interface CompactedStep {
  /** The messages to send in place of the SDK's; `undefined`: the SDK's own. */
  sent: ModelMessage[] | undefined;
  history: LoopHistory;
  /** The context the decision was taken on. */
  contextUsed: number;
  /** What the compactors reported (an empty result when none ran). */
  result: CompactionResult;
  /** The compaction applied, when one was. */
  compaction: StepCompaction | undefined;
  /** A compactor's failure, when one failed (see {@link StatelessOutcome}'s `error`). */
  error?: CompactionError;
}

/**
 * One step of a stateless path: the messages added since `known` converted and taken in (long
 * texts clamped), the context measured, the session's compaction run and landed
 * ({@link StatelessCompaction}), and the result converted back, unchanged messages handed back
 * as the objects they were.
 */
export async function compactStep(
  stateless: StatelessCompaction,
  step: LoopStep,
): Promise<CompactedStep> {
  const { known } = step;
  const taken = takeIn(stateless, step);
  const { before, conversation, estimate } = taken;
  const reported = reportedContext(step, taken.added);
  const contextUsed = stateless.contextUsed(reported, estimate, step.overheadTokens);
  let outcome: StatelessOutcome | undefined;
  try {
    // What the intake saw stands for the whole conversation only when nothing came before.
    const facts = known === undefined ? taken.facts : undefined;
    const options = { signal: step.signal, estimate, records: taken.records, facts };
    outcome = await stateless.compact(conversation, contextUsed, options);
  } catch (error) {
    if (step.onError === undefined) throw error;
    step.onError(error);
  }
  // A compactor's or the archive's failure: the last resort still ran (see StatelessOutcome).
  if (outcome?.error !== undefined) step.onError?.(outcome.error);
  // Anything else thrown changes nothing: the messages go as they came (unclamped too).
  const final = outcome?.conversation ?? before;
  const sources = known === undefined ? taken.sources : [...known.sources, ...taken.sources];
  const compacted = known?.compacted === true || conversationChanged(before, final);
  // The providers refuse a call id twice: one a provider numbered anew in each reply goes
  // renamed, the n-th use the same name at every step while the history only grows.
  const sending = withDistinctCallIds(final);
  let sent: ModelMessage[] | undefined;
  let kept: readonly MessageSource[] = sources;
  if (compacted || sending !== final || known?.sent !== undefined) {
    // Clamps change messages in place, as masking does: patched from their sources.
    ({ messages: sent, sources: kept } = backToModel(final, before, sources, sending));
  }
  const tokens = final === conversation ? estimate : undefined;
  // The SDK's messages as read once (a hostile array's getters are not read again).
  const input = known === undefined ? taken.fresh : [...known.input, ...taken.fresh];
  const history = { input, ours: final, tokens, sources: kept, sent, compacted };
  const compaction =
    outcome?.changed === true
      ? {
          result: outcome.result,
          contextUsed,
          messagesBefore: conversation.length,
          messagesAfter: final.length,
          thinkingBlocksDropped: outcome.thinkingBlocksDropped,
        }
      : undefined;
  return {
    sent,
    history,
    contextUsed,
    result: outcome?.result ?? emptyCompactionResult(),
    compaction,
    ...(outcome?.error === undefined ? {} : { error: outcome.error }),
  };
}

/** A step's messages taken in: those added since the known history, converted and clamped. */
interface TakenIn {
  /** The SDK's messages added since the known history. */
  fresh: readonly ModelMessage[];
  /** For each of the added messages converted, the SDK message it came from ({@link LoopHistory.sources}). */
  sources: readonly MessageSource[];
  /** The conversation as it came (the known history, then the added messages converted). */
  before: Message[];
  /** The same with the added messages clamped (the intake's). */
  conversation: Message[];
  /** The added messages as clamped. */
  added: Message[];
  /** What clamping cut, for the archive. */
  records: ArchiveRecord[];
  /** What the intake saw of the added messages. */
  facts: IntakeFacts;
  /** The local estimate of `conversation`. */
  estimate: number;
}

/**
 * Converts the messages added since the known history (ids: their positions in the step's
 * messages, which only grow between compactions) and takes them in as the session's intake
 * does; the estimate grows by theirs alone.
 */
function takeIn(stateless: StatelessCompaction, step: LoopStep): TakenIn {
  const { messages, known } = step;
  const from = known?.input.length ?? 0;
  const fresh = messagesFrom(messages, from, "AI SDK messages");
  // With an archive, what is removed outlives the call (the memory archive freezes it): tool
  // inputs are copied, not shared with the caller's parts.
  const copyInputs = stateless.keeper !== undefined;
  const after = known?.ours.at(-1)?.turnId;
  const converted = convertModelMessages(fresh, {}, after, from, copyInputs);
  // Seen for the first time: thinking a reply made over a compacted prompt is stale here.
  const current =
    known === undefined && converted.reasoning
      ? withoutThinkingOverCompaction(converted.messages)
      : converted.messages;
  const intake = stateless.intake(current, known?.ours);
  let estimate = converted.tokens;
  if (intake.repaired || current !== converted.messages) estimate = estimateTokens(intake.messages);
  else
    for (const index of intake.clamped) {
      estimate += estimateMessageTokens(intake.messages[index]!);
      estimate -= estimateMessageTokens(converted.messages[index]!);
    }
  if (known !== undefined) estimate += known.tokens ?? estimateTokens(known.ours);
  return {
    fresh,
    sources: converted.readApart === undefined ? fresh : sourcesOf(fresh, converted.readApart),
    before: known === undefined ? converted.messages : [...known.ours, ...converted.messages],
    conversation: known === undefined ? intake.messages : [...known.ours, ...intake.messages],
    added: intake.messages,
    records: intake.records,
    facts: intake.facts,
    estimate,
  };
}

/**
 * The sources of messages converted from `fresh` where some were read apart (`readApart`: the
 * indices of their first parts): those two stand for one SDK message.
 */
function sourcesOf(fresh: readonly ModelMessage[], readApart: readonly number[]): MessageSource[] {
  const sources: MessageSource[] = [];
  let next = 0;
  for (const message of fresh) {
    if (readApart[next] !== sources.length) sources.push(message);
    else {
      sources.push(new ReadApart(message), undefined);
      next += 1;
    }
  }
  return sources;
}

/**
 * The context the step's request takes as reported: the caller's `contextUsed`, else the last
 * request's usage (its prompt and reply) plus the estimate of what came after the reply (tool
 * results); `undefined` when neither is known.
 */
function reportedContext(step: LoopStep, added: readonly Message[]): number | undefined {
  if (step.contextUsed !== undefined) return step.contextUsed;
  if (step.usage === undefined || step.known === undefined) return undefined;
  // The reply is in the usage's output tokens; what follows it (tool results) is not.
  const after = added.filter((message) => message.role !== "assistant");
  return contextTokens(step.usage) + estimateTokens(after);
}
