import type { LanguageModelMiddleware, ModelMessage } from "ai";
import * as z from "zod/mini";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { functionSchema, positiveWholeNumber } from "../core/option-schemas.js";
import { charsToTokens } from "../core/tokens.js";
import type { Usage } from "../core/usage.js";
import { jsonLength } from "../internal/json-length.js";
import { REMEMBERED_CONVERSATIONS, RecentHistories } from "../internal/recent-histories.js";
import { contextWindowOf } from "../models/model-limits.js";
import { StatelessCompaction } from "../session/stateless-compaction.js";
import {
  STATELESS_COMPACTION_SHAPE,
  type StatelessCompactionOptions,
} from "../session/stateless-options.js";
import { compactStep, type LoopHistory, type StepCompaction } from "./compact-step.js";
import { markedReasoning } from "./compacted-replies.js";
import { usageFromAiSdk } from "./usage.js";

type TransformParams = NonNullable<LanguageModelMiddleware["transformParams"]>;
type CallOptions = Parameters<TransformParams>[0]["params"];
type WrappedModel = Parameters<TransformParams>[0]["model"];
type GenerateResult = Awaited<
  ReturnType<Parameters<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>[0]["doGenerate"]>
>;
type StreamResult = Awaited<
  ReturnType<Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["doStream"]>
>;
type ProviderUsage = GenerateResult["usage"];

/** A provider's usage (the V3 shape) as the AI SDK reports it to callers. */
function callUsage(usage: ProviderUsage): Usage | undefined {
  return usageFromAiSdk({
    inputTokens: usage.inputTokens.total,
    outputTokens: usage.outputTokens.total,
    inputTokenDetails: {
      noCacheTokens: usage.inputTokens.noCache,
      cacheReadTokens: usage.inputTokens.cacheRead,
      cacheWriteTokens: usage.inputTokens.cacheWrite,
    },
  });
}

/** Options of {@link compactionMiddleware}. */
export interface CompactionMiddlewareOptions
  extends Omit<StatelessCompactionOptions, "contextLimit" | "overheadTokens"> {
  /**
   * The model's context window in tokens. @default the known window of the wrapped model's id
   * (`contextWindowOf(model.modelId)`); a model whose window is not known then fails the call
   * with a `ValidationError`
   */
  contextLimit?: number;
  /**
   * Tokens the request holds besides its prompt. @default the estimate of the call's tool
   * definitions (the system prompt is in the prompt)
   */
  overheadTokens?: number;
  /** Told of each compaction applied to a call's prompt. @default none */
  onCompaction?: (event: MiddlewareCompaction) => void;
  /**
   * Told when a compactor failed (a summarizer's outage) or the archive did: the last resort
   * still fits the prompt in the window, as in `maybeCompact` (what ran before a failed
   * compactor stands; nothing a compactor did stands when the archive could not keep what it
   * removed). @default none (the failure is dropped)
   */
  onError?: (error: unknown) => void;
  /** How many conversations it remembers (the latest ones it compacted for). @default 16 */
  conversations?: number;
}

/** A compaction {@link compactionMiddleware} applied to a call's prompt. */
export interface MiddlewareCompaction extends StepCompaction {
  /** The wrapped model's id. */
  modelId: string;
}

/** Defaults of {@link CompactionMiddlewareOptions}' own options (the rest are the session's). */
const DEFAULT_MIDDLEWARE_OPTIONS = Object.freeze({ conversations: REMEMBERED_CONVERSATIONS });

const OptionsSchema = z.strictObject({
  ...STATELESS_COMPACTION_SHAPE,
  contextLimit: z.exactOptional(STATELESS_COMPACTION_SHAPE.contextLimit),
  onCompaction: z.exactOptional(functionSchema<(event: MiddlewareCompaction) => void>()),
  onError: z.exactOptional(functionSchema<(error: unknown) => void>()),
  conversations: z.exactOptional(positiveWholeNumber()),
}) as unknown as z.ZodMiniType<CompactionMiddlewareOptions>;

/**
 * The conversations a middleware compacted for, newest first: a call whose prompt continues
 * one of them (its messages start with the ones that conversation was given, the same data)
 * goes on from what was sent, append-only, as a `prepareStep` does between steps.
 */
class RecentConversations {
  readonly #histories: RecentHistories<LoopHistory>;
  /** The history each prompt sent stands for, so the call's usage reaches it. */
  readonly #sent = new WeakMap<object, LoopHistory>();
  /** The usage the model reported for what each history sent. */
  readonly #usage = new WeakMap<LoopHistory, Usage>();

  constructor(size: number) {
    this.#histories = new RecentHistories(size);
  }

  /** The longest remembered conversation the prompt continues. */
  find(prompt: readonly ModelMessage[]): LoopHistory | undefined {
    return this.#histories.find(prompt);
  }

  /** Remembers `next` in place of `previous` (the one it continued), newest first; `prompt` is what it sent. */
  remember(previous: LoopHistory | undefined, next: LoopHistory, prompt: object): void {
    this.#histories.remember(previous, next);
    this.#sent.set(prompt, next);
  }

  /** Records the usage the model reported for a prompt this middleware sent. */
  reported(prompt: object, usage: ProviderUsage | undefined): void {
    const history = this.#sent.get(prompt);
    const converted = usage === undefined ? undefined : callUsage(usage);
    if (history !== undefined && converted !== undefined) this.#usage.set(history, converted);
  }

  /**
   * Whether the prompt this middleware sent was compacted (its replies are marked so); one
   * whose call ids alone were renamed is not (every path renames them the same way).
   */
  compacted(prompt: object): boolean {
    return this.#sent.get(prompt)?.compacted === true;
  }

  /** The usage reported for what `history` sent, if any. */
  usageOf(history: LoopHistory | undefined): Usage | undefined {
    return history === undefined ? undefined : this.#usage.get(history);
  }
}

/**
 * `result` with its stream tapped: the `finish` part's usage goes to `report`; with `mark`, its
 * reasoning is marked as made over a compacted prompt ({@link markedReasoning}).
 */
function tapUsage(
  result: StreamResult,
  report: (usage: ProviderUsage) => void,
  mark: boolean,
): StreamResult {
  const tap = new TransformStream<StreamPart, StreamPart>({
    transform(part, controller) {
      if (part.type === "finish") report(part.usage);
      controller.enqueue(mark ? markedReasoning(part) : part);
    },
  });
  return { ...result, stream: result.stream.pipeThrough(tap) };
}

type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

/**
 * A language-model middleware that compacts every call's prompt, for `wrapLanguageModel`: then
 * `generateText`, `streamText`, `generateObject` and agents compact on every call, without a
 * `prepareStep` in each. It runs what `compactModelMessages` runs (the session's default
 * compactor, clamps, landing and last resort), on the prompt the provider is about to get.
 * It remembers the conversations it compacted for (by their messages' data), so the steps of a
 * tool loop go on from what was sent: append-only between compactions, so the prompt cache
 * stays warm and thinking stays valid. The context is judged as `compactionPrepareStep` judges
 * it: on the usage the model reported for the call before (cache reads and writes included)
 * plus the estimate of what came after it; on the local estimate of the prompt and the tool
 * definitions before any usage.
 *
 * @example
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { generateText, wrapLanguageModel } from "ai";
 *
 * const model = wrapLanguageModel({
 *   model: anthropic("claude-sonnet-5-5"),
 *   middleware: compactionMiddleware(), // the window from the model's id
 * });
 * const { text } = await generateText({ model, messages });
 * @throws {ValidationError} when an option is invalid (at once).
 */
export function compactionMiddleware(
  options: CompactionMiddlewareOptions = {},
): LanguageModelMiddleware {
  const parsed = parseOrThrow(OptionsSchema, options, "compactionMiddleware options");
  const compactions = new Map<number, StatelessCompaction>();
  const compactionFor = (model: WrappedModel): StatelessCompaction => {
    const contextLimit = parsed.contextLimit ?? windowOf(model.modelId);
    let compaction = compactions.get(contextLimit);
    if (compaction === undefined) {
      compaction = new StatelessCompaction({ ...parsed, contextLimit });
      compactions.set(contextLimit, compaction);
    }
    return compaction;
  };
  const recent = new RecentConversations(
    parsed.conversations ?? DEFAULT_MIDDLEWARE_OPTIONS.conversations,
  );
  return {
    specificationVersion: "v3",
    transformParams: async ({ params, model }) => {
      // The provider-level prompt is a subset of `ModelMessage[]`: the same roles and parts.
      const prompt = params.prompt as unknown as ModelMessage[];
      const known = recent.find(prompt);
      const step = await compactStep(compactionFor(model), {
        messages: prompt,
        known,
        usage: recent.usageOf(known),
        overheadTokens: parsed.overheadTokens ?? toolTokens(params),
        signal: params.abortSignal,
        onError: (error) => parsed.onError?.(error),
      });
      if (step.compaction !== undefined)
        parsed.onCompaction?.({ ...step.compaction, modelId: model.modelId });
      const sent =
        step.sent === undefined
          ? params
          : { ...params, prompt: step.sent as unknown as CallOptions["prompt"] };
      recent.remember(known, step.history, sent.prompt);
      return sent;
    },
    // The usage of each call reaches the conversation it sent: the next call is judged on it.
    // A reply to a compacted prompt has its reasoning marked: a fresh look at the history an
    // app keeps (a restart, a middleware per request) then knows that thinking is stale there.
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      recent.reported(params.prompt, result.usage);
      if (!recent.compacted(params.prompt)) return result;
      return { ...result, content: result.content.map(markedReasoning) };
    },
    wrapStream: async ({ doStream, params }) =>
      tapUsage(
        await doStream(),
        (usage) => recent.reported(params.prompt, usage),
        recent.compacted(params.prompt),
      ),
  };
}

/** The known window of a model id. @throws {ValidationError} when it is not known. */
function windowOf(modelId: string): number {
  const known = contextWindowOf(modelId);
  if (known !== undefined) return known;
  throw new ValidationError("compactionMiddleware options", [
    {
      path: ["contextLimit"],
      message: `is required: the window of model ${JSON.stringify(modelId.slice(0, 64))} is not known`,
    },
  ]);
}

/** The estimate of a call's tool definitions. */
function toolTokens(params: CallOptions): number {
  return params.tools === undefined ? 0 : charsToTokens(jsonLength(params.tools));
}
