import type { LanguageModelUsage, ModelMessage } from "ai";
import * as z from "zod/mini";
import type { CompactionResult } from "../core/compactor.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { ABORT_SIGNAL_SCHEMA, functionSchema } from "../core/option-schemas.js";
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
  /**
   * Cancels a step's compaction (a summary in flight): give it the loop's `abortSignal`, as
   * `ai@6` passes `prepareStep` none, so an aborted loop does not wait for the summarizer's
   * timeout. A step's own `abortSignal`, where an SDK passes one, is used before it.
   * @default none
   */
  signal?: AbortSignal;
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

/** What {@link CompactionPrepareStep.history} reads of a loop's result (`generateText`'s). */
export interface LoopResult {
  /** The loop's steps: the array each of its steps was prepared with. */
  steps: readonly unknown[];
  response: { messages: readonly ModelMessage[] };
}

/** What {@link compactionPrepareStep} makes: a `prepareStep`, and the history each loop sent. */
export interface CompactionPrepareStep {
  (input: PrepareStepInput): Promise<PrepareStepOutput>;
  /**
   * The conversation to keep once a loop is done: what its last step sent (compacted, when a
   * step compacted) with that step's response messages after it. The loop's own
   * `[...messages, ...result.response.messages]` is the uncompacted history: thinking signed
   * after a compaction is refused on it. The loop is told by its `steps` (one function may
   * serve concurrent loops, an `Agent`'s).
   *
   * @param result `generateText`'s result; for `streamText`,
   * `{ steps: await result.steps, response: await result.response }`
   * @throws {ValidationError} for a result of a loop this function did not prepare, or whose
   * response messages are not that loop's.
   */
  history(result: LoopResult): ModelMessage[];
}

/** What one loop's steps have in common. */
interface LoopState {
  /** How many messages the loop was given: its response messages come after them. */
  given: number;
  history: LoopHistory | undefined;
}

const OptionsSchema = z.strictObject({
  ...STATELESS_COMPACTION_SHAPE,
  onCompaction: z.exactOptional(functionSchema<(event: PrepareStepCompaction) => void>()),
  onError: z.exactOptional(functionSchema<(error: unknown) => void>()),
  signal: z.exactOptional(ABORT_SIGNAL_SCHEMA),
}) as unknown as z.ZodMiniType<CompactionPrepareStepOptions>;

/** Any object, a class's instance too (a loop's result): its fields are read one by one. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

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
 * (`generateText` call), told by the `steps` array the SDK gives each of its steps, so
 * concurrent loops (an `Agent`'s) do not meet. Keep its `history(result)` as the conversation
 * after the loop: the history as sent, which later thinking was signed over.
 *
 * @example
 * const prepareStep = compactionPrepareStep({ contextLimit: 200_000 });
 * const result = await generateText({
 *   model, tools, messages, stopWhen: stepCountIs(50), prepareStep,
 * });
 * messages = prepareStep.history(result);
 * @throws {ValidationError} when an option is invalid (at once) or a message is malformed.
 */
export function compactionPrepareStep(
  options: CompactionPrepareStepOptions,
): CompactionPrepareStep {
  const parsed = parseOrThrow(OptionsSchema, options, "compactionPrepareStep options");
  const stateless = new StatelessCompaction(parsed);
  const loops = new WeakMap<object, LoopState>();
  let latest: LoopState | undefined;
  const prepare = async (input: PrepareStepInput): Promise<PrepareStepOutput> => {
    const { messages, steps } = input;
    let loop = loops.get(steps);
    if (loop === undefined) {
      // A loop's first step; or a caller's own loop that passes a new `steps` each time: it
      // goes on from the latest loop when its messages continue that one's.
      const continued =
        input.stepNumber > 0 &&
        latest?.history !== undefined &&
        startsWith(messages, latest.history.input);
      loop = continued ? latest! : { given: messages.length, history: undefined };
      loops.set(steps, loop);
    }
    latest = loop;
    const { history } = loop;
    const known =
      history !== undefined && startsWith(messages, history.input) ? history : undefined;
    const step = await compactStep(stateless, {
      messages,
      known,
      usage: usageFromAiSdk(input.steps.at(-1)?.usage),
      signal: input.abortSignal ?? parsed.signal,
      // A failure leaves the history as it was, as `maybeCompact` does.
      onError: (error) => parsed.onError?.(error),
    });
    loop.history = step.history;
    if (step.compaction !== undefined)
      parsed.onCompaction?.({ stepNumber: input.stepNumber, ...step.compaction });
    return step.sent === undefined ? {} : { messages: step.sent };
  };
  return Object.assign(prepare, {
    history(result: LoopResult): ModelMessage[] {
      // A result is a class's instance (`generateText`'s): read as any object, each field once.
      const steps = isObject(result) ? result["steps"] : undefined;
      const response = isObject(result) ? result["response"] : undefined;
      const history = isObject(steps) ? loops.get(steps) : undefined;
      const responseMessages = isObject(response) ? response["messages"] : undefined;
      if (history?.history === undefined)
        throw new ValidationError("compactionPrepareStep history", [
          { path: ["steps"], message: "must be the steps of a loop this function prepared" },
        ]);
      const { input, sent } = history.history;
      // The steps' response messages before the last are in what the last step got; so is a
      // tool message the SDK made before the first step (an approved call it ran), which the
      // response messages open with (a step's open with its assistant message).
      const made = Array.isArray(responseMessages) && responseMessages[0]?.role === "tool";
      const before = input.length - history.given + (made ? 1 : 0);
      if (!Array.isArray(responseMessages) || responseMessages.length < before)
        throw new ValidationError("compactionPrepareStep history", [
          {
            path: ["response", "messages"],
            message: `must be the loop's response messages (an array of ${before} or more)`,
          },
        ]);
      return [...(sent ?? input), ...responseMessages.slice(before)];
    },
  });
}
