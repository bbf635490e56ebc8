import type { LanguageModelUsage, ModelMessage } from "ai";
import * as z from "zod/mini";
import type { CompactionResult } from "../core/compactor.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { functionSchema } from "../core/option-schemas.js";
import { StatelessCompaction } from "../session/stateless-compaction.js";
import {
  STATELESS_COMPACTION_SHAPE,
  type StatelessCompactionOptions,
} from "../session/stateless-options.js";
import { compactStep, type LoopHistory } from "./compact-step.js";
import { usageFromAiSdk } from "./usage.js";

/** Options of {@link compactionPrepareStep}. */
export interface CompactionPrepareStepOptions extends StatelessCompactionOptions {
  /** Told of each compaction applied, with the step it was applied before. @default none */
  onCompaction?: (event: PrepareStepCompaction) => void;
  /**
   * Told when a compactor failed (a summarizer's outage) or the archive did: the last resort
   * still fits the step in the window, as in `maybeCompact` (what ran before a failed
   * compactor stands; nothing a compactor did stands when the archive could not keep what it
   * removed). @default none (the failure is dropped)
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
  /** Thinking blocks removed because the compaction made them stale. */
  thinkingBlocksDropped: number;
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

/** What {@link compactionPrepareStep} makes: a `prepareStep`, and the history its loop sent. */
export interface CompactionPrepareStep {
  (input: PrepareStepInput): Promise<PrepareStepOutput>;
  /**
   * The conversation to keep once the loop is done: what its last step sent (compacted, when a
   * step compacted) with that step's response messages after it. The loop's own
   * `[...messages, ...result.response.messages]` is the uncompacted history: thinking signed
   * after a compaction is refused on it.
   *
   * @param responseMessages the loop's `result.response.messages`
   * @throws {ValidationError} before the loop's first step, or when `responseMessages` is not
   * an array holding at least the steps' messages before the last.
   */
  history(responseMessages: readonly ModelMessage[]): ModelMessage[];
}

const OptionsSchema = z.strictObject({
  ...STATELESS_COMPACTION_SHAPE,
  onCompaction: z.exactOptional(functionSchema<(event: PrepareStepCompaction) => void>()),
  onError: z.exactOptional(functionSchema<(error: unknown) => void>()),
}) as unknown as z.ZodMiniType<CompactionPrepareStepOptions>;

/** Whether `values` starts with the very objects of `prefix`. */
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
 * (`generateText` call); a loop it has not seen starts afresh. Keep its `history(...)` as the
 * conversation after the loop: the history as sent, which later thinking was signed over.
 *
 * @example
 * const prepareStep = compactionPrepareStep({ contextLimit: 200_000 });
 * const result = await generateText({
 *   model, tools, messages, stopWhen: stepCountIs(50), prepareStep,
 * });
 * messages = prepareStep.history(result.response.messages);
 * @throws {ValidationError} when an option is invalid (at once) or a message is malformed.
 */
export function compactionPrepareStep(
  options: CompactionPrepareStepOptions,
): CompactionPrepareStep {
  const parsed = parseOrThrow(OptionsSchema, options, "compactionPrepareStep options");
  const stateless = new StatelessCompaction(parsed);
  let history: LoopHistory | undefined;
  /** How many messages the loop was given: the response messages come after them. */
  let given = 0;
  const prepare = async (input: PrepareStepInput): Promise<PrepareStepOutput> => {
    const { messages } = input;
    if (input.stepNumber === 0) given = messages.length;
    const known =
      history !== undefined && startsWith(messages, history.input) ? history : undefined;
    const step = await compactStep(stateless, {
      messages,
      known,
      usage: usageFromAiSdk(input.steps.at(-1)?.usage),
      signal: input.abortSignal,
      // A failure leaves the history as it was, as `maybeCompact` does.
      onError: (error) => parsed.onError?.(error),
    });
    history = step.history;
    if (step.compaction !== undefined)
      parsed.onCompaction?.({ stepNumber: input.stepNumber, ...step.compaction });
    return step.sent === undefined ? {} : { messages: step.sent };
  };
  return Object.assign(prepare, {
    history(responseMessages: readonly ModelMessage[]): ModelMessage[] {
      // The response messages of the steps before the last are in what the last step got.
      const before = history === undefined ? 0 : history.input.length - given;
      const problem =
        history === undefined
          ? "no step was prepared yet: call it after the loop"
          : !Array.isArray(responseMessages) || responseMessages.length < before
            ? `must be the loop's result.response.messages (an array of ${before} or more)`
            : undefined;
      if (history === undefined || problem !== undefined)
        throw new ValidationError("compactionPrepareStep history", [
          { path: ["responseMessages"], message: problem ?? "" },
        ]);
      return [...(history.sent ?? history.input), ...responseMessages.slice(before)];
    },
  });
}
