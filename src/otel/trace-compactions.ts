import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import type { LlmClient } from "../core/llm-client.js";
import { newId } from "../core/message-factory.js";
import { methodsSchema, optionsSchema, STRING_SCHEMA } from "../core/option-schemas.js";
import type { CompactionUsage } from "../core/usage.js";
import { type ModelPricing, ModelPricingSchema } from "../models/model-pricing.js";
import { priceUsage } from "../models/price-usage.js";
import type {
  CompactionEndEvent,
  CompactionEvent,
  CompactionFailedEvent,
  CompactionSkippedEvent,
  CompactionStartEvent,
  ContextTrimmedEvent,
} from "../session/events.js";
import {
  COMPACTION_ATTRIBUTES as A,
  COMPACTION_SPAN_NAME,
  GEN_AI_ATTRIBUTES,
} from "./attributes.js";
import { providerOfModel } from "./provider-name.js";
import {
  boundedAttributes,
  boundedText,
  endSafely,
  MAX_STATUS_CHARS,
  recordError,
  safely,
} from "./safe-span.js";
import { type SummarizerRuns, summarizerRuns } from "./summarizer-link.js";
import { TRACER_SCHEMA, tracerOf } from "./tracer.js";
import { genAiUsageAttributes } from "./usage.js";

/** What {@link traceCompactions} needs of a session: `AgentSession` fits. */
export interface TracedSession {
  /** Subscribes to the session's events; returns the unsubscribe function. */
  on(listener: (event: CompactionEvent) => void): () => void;
  /** Recorded as `gen_ai.conversation.id`. */
  readonly sessionId?: string;
  /** Read for the message counts before and after a run. */
  readonly messages: readonly unknown[];
  /** Recorded as `agent_compaction.context_limit` on a run without a start event (a sync compactor's). */
  readonly contextLimit?: number;
}

/** Options of {@link traceCompactions}. */
export interface TraceCompactionsOptions {
  /** The tracer. @default the global provider's tracer `agent-compaction` */
  tracer?: Tracer;
  /**
   * The summarizer's client as `traceLlmClient` returned it: the `chat` span of each request
   * becomes a child of the compaction span of the run that sent it (several sessions may share
   * the client). @default none
   */
  summarizer?: LlmClient;
  /**
   * The model of a compactor whose cost arrives only in its result (`AnthropicCompactor`):
   * its `chat` child span, built from `result.usage`, names it. @default not set
   */
  summarizerModel?: string;
  /**
   * The summarizer model's prices: a run's cost in dollars (`agent_compaction.cost.usd`) from
   * its `result.usage`. @default not priced (the cost in tokens only)
   */
  pricing?: ModelPricing;
}

/** One compaction run whose span is open. */
interface OpenRun {
  span: Span;
  strategy: string;
  trigger: string;
  /** Whether its start event named it (`runId`): then only an end event naming it ends it. */
  named: boolean;
}

/**
 * The most runs open at once (sessions sharing one tracing, each running one at a time): beyond
 * it the oldest span ends, so a session that never ends its runs cannot grow the map.
 */
const MAX_OPEN_RUNS = 1_024;

type RunEnd = CompactionEndEvent | CompactionFailedEvent | CompactionSkippedEvent;

const TracedSessionSchema = methodsSchema<TracedSession>("a session", "on");

/** Schema of {@link TraceCompactionsOptions}. */
const TraceCompactionsOptionsSchema = optionsSchema({
  tracer: z.exactOptional(TRACER_SCHEMA),
  summarizer: z.exactOptional(
    z.custom<LlmClient>(
      (value) => summarizerRuns(value) !== undefined,
      "must be a client returned by traceLlmClient",
    ),
  ),
  summarizerModel: z.exactOptional(STRING_SCHEMA),
  pricing: z.exactOptional(ModelPricingSchema),
});

/**
 * Traces a session's compactions: each run is a span (`agent_compaction.compact`) with its
 * strategy, trigger, tokens and messages before and after, outcome and cost, and an overflow
 * trim is one too. The spans start under the active context (wrap `maybeCompact` in your own
 * span to nest them). Without a registered tracer provider the spans are no-ops and no
 * attribute is computed. Returns the function that stops tracing.
 *
 * @example
 * const stop = traceCompactions(session, { summarizer });
 */
export function traceCompactions(
  session: TracedSession,
  options: TraceCompactionsOptions = {},
): () => void {
  parseOrThrow(TracedSessionSchema, session, "traceCompactions session");
  const { tracer, summarizer, summarizerModel, pricing } = parseOrThrow(
    TraceCompactionsOptionsSchema,
    typeof options === "object" && options !== null ? options : {},
    "traceCompactions options",
  );
  const runs = summarizer === undefined ? undefined : summarizerRuns(summarizer);
  const tracing = new CompactionTracing(session, tracerOf(tracer), runs, {
    model: summarizerModel,
    pricing,
  });
  const unsubscribe = session.on((event) => tracing.handle(event));
  return () => {
    unsubscribe();
    tracing.close();
  };
}

class CompactionTracing {
  readonly #session: TracedSession;
  readonly #tracer: Tracer;
  readonly #runs: SummarizerRuns | undefined;
  readonly #model: string | undefined;
  readonly #pricing: ModelPricing | undefined;
  /** The runs open, by their id with the summarizer (the start event's `runId`, else one of ours), oldest first. */
  readonly #open = new Map<string, OpenRun>();

  constructor(
    session: TracedSession,
    tracer: Tracer,
    runs: SummarizerRuns | undefined,
    summarizer: { model: string | undefined; pricing: ModelPricing | undefined },
  ) {
    this.#session = session;
    this.#tracer = tracer;
    this.#runs = runs;
    this.#model = summarizer.model;
    this.#pricing = summarizer.pricing;
  }

  handle(event: CompactionEvent): void {
    switch (event.type) {
      case "compaction_start":
        this.#start(event);
        return;
      case "compaction_end":
      case "compaction_failed":
      case "compaction_skipped":
        this.#finish(event);
        return;
      case "context_trimmed":
        this.#trimmed(event);
        return;
      default:
        return;
    }
  }

  /** Ends the spans left open (tracing stopped mid-run). */
  close(): void {
    for (const runId of [...this.#open.keys()]) this.#end(runId);
  }

  /** Ends an open run's span as it is, outcome unknown. */
  #end(runId: string): void {
    const open = this.#open.get(runId);
    if (open === undefined) return;
    this.#open.delete(runId);
    this.#runs?.close(runId);
    endSafely(open.span);
  }

  /**
   * A run's span, its first attributes set; `undefined` when the tracer threw (the run goes
   * untraced, the compaction on).
   */
  #startSpan(strategy: string, trigger: string, extra: () => Attributes): Span | undefined {
    const span = safely(() =>
      this.#tracer.startSpan(COMPACTION_SPAN_NAME, { kind: SpanKind.INTERNAL }, context.active()),
    );
    if (span === undefined) return undefined;
    safely(() => {
      if (!span.isRecording()) return;
      const id = this.#session.sessionId;
      span.setAttributes(
        boundedAttributes({
          [A.STRATEGY]: strategy,
          [A.TRIGGER]: trigger,
          ...(typeof id === "string" ? { [GEN_AI_ATTRIBUTES.CONVERSATION_ID]: id } : {}),
          ...extra(),
        }),
      );
    });
    return span;
  }

  #start(event: CompactionStartEvent): void {
    const runId = typeof event.runId === "string" ? event.runId : newId();
    const named = runId === event.runId;
    // A start naming no run is a session that runs one at a time: it ends the one it left open.
    if (!named) for (const [runId, open] of this.#open) if (!open.named) this.#end(runId);
    const oldest = this.#open.keys().next();
    if (this.#open.size >= MAX_OPEN_RUNS && oldest.done !== true) this.#end(oldest.value);
    const span = this.#startSpan(event.strategy, event.trigger, () => ({
      [A.CONTEXT_LIMIT]: event.contextLimit,
      [A.CONTEXT_USED_BEFORE]: event.contextUsed,
      [A.MESSAGES_BEFORE]: this.#session.messages.length,
    }));
    // A session gives each run an id its requests carry; a start event without one is tied
    // to requests naming no run.
    if (span === undefined) return;
    this.#end(runId);
    this.#open.set(runId, { span, strategy: event.strategy, trigger: event.trigger, named });
    this.#runs?.open(runId, span);
  }

  /**
   * The run an end event closes, and how many traced requests it sent: the open run the event
   * names (`runId`), or for an event naming none the open run of a start that named none, with
   * its strategy and trigger; else a run without a start (a sync compactor's).
   */
  #take(event: RunEnd): { run: OpenRun; requests: number } | undefined {
    const runId = this.#openRunOf(event);
    const open = runId === undefined ? undefined : this.#open.get(runId);
    if (runId !== undefined && open !== undefined) {
      this.#open.delete(runId);
      return { run: open, requests: this.#runs?.close(runId) ?? 0 };
    }
    const span = this.#startSpan(event.strategy, event.trigger, () => {
      const limit = this.#session.contextLimit;
      return typeof limit === "number" ? { [A.CONTEXT_LIMIT]: limit } : {};
    });
    if (span === undefined) return undefined;
    return {
      run: { span, strategy: event.strategy, trigger: event.trigger, named: false },
      requests: 0,
    };
  }

  /** The id of the open run an end event ends, if any (see {@link CompactionTracing.#take}). */
  #openRunOf(event: RunEnd): string | undefined {
    const { runId } = event;
    if (typeof runId === "string") return this.#open.has(runId) ? runId : undefined;
    for (const [id, open] of this.#open)
      if (!open.named && open.strategy === event.strategy && open.trigger === event.trigger)
        return id;
    return undefined;
  }

  #finish(event: RunEnd): void {
    const taken = this.#take(event);
    if (taken === undefined) return;
    const { run, requests } = taken;
    const { span } = run;
    // Each step on its own: what one throws leaves the others, and the span always ends.
    if (event.type === "compaction_failed") {
      // The message may quote what the provider answered, of any length.
      const message = boundedText(String(event.error.message), MAX_STATUS_CHARS);
      safely(() => span.setStatus({ code: SpanStatusCode.ERROR, message }));
    }
    if (safely(() => span.isRecording()) === true) {
      safely(() => span.setAttributes(boundedAttributes(this.#outcome(event))));
      if (event.type === "compaction_failed") safely(() => recordError(span, event.error));
      if (event.type === "compaction_end" && event.result.usage !== undefined) {
        const usage = event.result.usage;
        safely(() => span.setAttributes(costAttributes(usage, this.#pricing)));
        // The summarizer's requests have spans of their own; a server-side compaction's not.
        if (requests === 0) safely(() => this.#usageSpan(span, usage));
      }
    }
    endSafely(span);
  }

  #outcome(event: RunEnd): Attributes {
    switch (event.type) {
      case "compaction_skipped":
        return { [A.OUTCOME]: "skipped", [A.SKIP_REASON]: event.reason };
      case "compaction_failed":
        return {
          [A.OUTCOME]: "failed",
          [A.ERROR_CODE]: event.error.code,
          [GEN_AI_ATTRIBUTES.ERROR_TYPE]: event.error.code,
        };
      default: {
        const { result, boundary } = event;
        return {
          [A.OUTCOME]: "compacted",
          [A.TOKENS_BEFORE]: event.tokensBefore,
          [A.TOKENS_AFTER]: event.tokensAfter,
          [A.CONTEXT_USED_BEFORE]: event.contextUsedBefore,
          [A.CONTEXT_USED_AFTER]: event.contextUsedAfter,
          ...(event.messagesBefore === undefined
            ? {}
            : { [A.MESSAGES_BEFORE]: event.messagesBefore }),
          [A.MESSAGES_AFTER]: event.messagesAfter ?? this.#session.messages.length,
          ...(result.messagesRemoved === undefined
            ? {}
            : { [A.MESSAGES_REMOVED]: result.messagesRemoved }),
          [A.TURNS_COMPACTED]: result.turnsCompacted,
          [A.TOOL_RESULTS_SUMMARIZED]: result.toolResultsSummarized,
          [A.TOOL_RESULTS_REDACTED]: result.toolResultsRedacted,
          [A.THINKING_BLOCKS_DROPPED]: boundary.thinkingBlocksDropped,
        };
      }
    }
  }

  /**
   * The summarizer's request as a `chat` child span, from the usage the result reports, for a
   * compactor whose requests were not traced (a server-side compaction's).
   */
  #usageSpan(parent: Span, usage: CompactionUsage): void {
    const model = this.#model;
    const provider = model === undefined ? undefined : providerOfModel(model);
    const span = this.#tracer.startSpan(
      model === undefined ? "chat" : `chat ${boundedText(model)}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI_ATTRIBUTES.OPERATION_NAME]: "chat",
          ...(model === undefined ? {} : { [GEN_AI_ATTRIBUTES.REQUEST_MODEL]: boundedText(model) }),
          ...(provider === undefined ? {} : { [GEN_AI_ATTRIBUTES.PROVIDER_NAME]: provider }),
          ...genAiUsageAttributes(usage),
        },
      },
      trace.setSpan(context.active(), parent),
    );
    endSafely(span);
  }

  #trimmed(event: ContextTrimmedEvent): void {
    const span = this.#startSpan("trim", event.trigger, () => ({
      [A.OUTCOME]: "trimmed",
      [A.CONTEXT_USED_BEFORE]: event.contextUsedBefore,
      [A.CONTEXT_USED_AFTER]: event.contextUsedAfter,
      [A.MESSAGES_REMOVED]: event.removed.length,
      [A.THINKING_BLOCKS_DROPPED]: event.thinkingBlocksDropped,
    }));
    if (span !== undefined) endSafely(span);
  }
}

/** A compaction's own cost in tokens, as span attributes. */
function costAttributes(usage: CompactionUsage, pricing: ModelPricing | undefined): Attributes {
  return {
    ...(pricing === undefined ? {} : { [A.COST_USD]: priceUsage(usage, pricing).totalUsd }),
    [A.COST_INPUT_TOKENS]: usage.inputTokens,
    [A.COST_OUTPUT_TOKENS]: usage.outputTokens,
    [A.COST_CACHE_READ_INPUT_TOKENS]: usage.cacheReadInputTokens ?? 0,
    [A.COST_CACHE_WRITE_INPUT_TOKENS]: usage.cacheCreationInputTokens ?? 0,
  };
}
