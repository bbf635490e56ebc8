import {
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import * as z from "zod/mini";
import { isAbortSignal } from "../core/abort.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { LLM_CLIENT_SCHEMA, type LlmClient, type LlmRequest } from "../core/llm-client.js";
import { NON_EMPTY_STRING_SCHEMA, optionsSchema, STRING_SCHEMA } from "../core/option-schemas.js";
import { GEN_AI_ATTRIBUTES } from "./attributes.js";
import { providerOfModel } from "./provider-name.js";
import { boundedText, endSafely, recordError, safely } from "./safe-span.js";
import { attachSummarizerRuns, type SummarizerRuns } from "./summarizer-link.js";
import { TRACER_SCHEMA, tracerOf } from "./tracer.js";
import { genAiUsageAttributes, replyUsage } from "./usage.js";

/** Options of {@link traceLlmClient}. */
export interface TraceLlmClientOptions {
  /** The model the client asks, as `gen_ai.request.model` (e.g. `"claude-haiku-4-5"`). */
  model: string;
  /**
   * `gen_ai.provider.name`, e.g. `"anthropic"`, `"openai"`, `"gcp.vertex_ai"`.
   * @default inferred from a model the library knows (`anthropic`, `openai`, `gcp.gemini`; a
   * Bedrock or Vertex name `aws.bedrock`, `gcp.vertex_ai`), else not set
   */
  provider?: string;
  /** The tracer. @default the global provider's tracer `agent-compaction` */
  tracer?: Tracer;
}

/** Schema of `traceLlmClient`'s arguments: the client and its options, checked as one. */
const TraceLlmClientArgumentsSchema = optionsSchema({
  client: LLM_CLIENT_SCHEMA,
  model: NON_EMPTY_STRING_SCHEMA.check(
    z.refine((model) => model.trim() !== "", "must be a non-empty string"),
  ),
  provider: z.exactOptional(STRING_SCHEMA),
  tracer: z.exactOptional(TRACER_SCHEMA),
});

/**
 * Wraps a summarizer's `LlmClient` so that each request is a `chat` span following the GenAI
 * semantic conventions (model, token usage with cache reads and writes when the reply reports
 * them); passed to `traceCompactions` as `summarizer`, each span is a child of the compaction
 * span of the run its request serves (`LlmRequest.runId`), so sessions may share one client.
 * Without a registered tracer provider it only forwards the call.
 *
 * @example
 * const summarizer = traceLlmClient(new AnthropicLlmClient({ model }), { model, provider: "anthropic" });
 * const session = new AgentSession({ contextLimit: 200_000, llmCompactor: new LLMCompactor(summarizer) });
 * traceCompactions(session, { summarizer });
 */
export function traceLlmClient(client: LlmClient, options: TraceLlmClientOptions): LlmClient {
  const given = typeof options === "object" && options !== null ? options : {};
  const { model, provider, tracer } = parseOrThrow(
    TraceLlmClientArgumentsSchema,
    { ...given, client },
    "traceLlmClient options",
  );
  const attributes = {
    model: boundedText(model),
    provider: optionalText(provider ?? providerOfModel(model)),
  };
  const traced: LlmClient = {
    // Kept, so a client that reads the prompt cache still gets the conversation.
    ...(client.acceptsConversation === true ? { acceptsConversation: true } : {}),
    async complete(request: LlmRequest) {
      // A tracer that throws leaves the request untraced, never failed.
      const started = safely(() => startChatSpan(tracerOf(tracer), runs, request, attributes));
      if (started === undefined) return client.complete(request);
      const { span, within } = started;
      const ending = endOnAbort(span, request.signal);
      try {
        const reply = await callWithin(within, () => client.complete(request));
        if (!ending.ended) safely(() => recordReply(span, reply));
        return reply;
      } catch (error) {
        // Ended in `finally`, once.
        if (!ending.ended) {
          safely(() => markFailed(span, errorType(error)));
          safely(() => recordError(span, error));
        }
        throw error;
      } finally {
        ending.release();
        if (!ending.ended) endSafely(span);
      }
    },
  };
  const runs = attachSummarizerRuns(traced);
  return traced;
}

/** The model and provider a `chat` span names, bounded. */
interface ChatNames {
  model: string;
  provider: string | undefined;
}

/** `text` bounded, when given. */
function optionalText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : boundedText(text);
}

/**
 * A request's `chat` span, under the compaction span of the run it names (else the active
 * context), and the context the client's call runs in (the span active there).
 */
function startChatSpan(
  tracer: Tracer,
  runs: SummarizerRuns,
  request: LlmRequest,
  names: ChatNames,
): { span: Span; within: Context } {
  const parentSpan = runs.parentOf(request.runId);
  const parent =
    parentSpan === undefined ? context.active() : trace.setSpan(context.active(), parentSpan);
  const span = tracer.startSpan(
    `chat ${names.model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI_ATTRIBUTES.OPERATION_NAME]: "chat",
        [GEN_AI_ATTRIBUTES.REQUEST_MODEL]: names.model,
        ...(names.provider === undefined
          ? {}
          : { [GEN_AI_ATTRIBUTES.PROVIDER_NAME]: names.provider }),
        ...(request.maxTokens === undefined
          ? {}
          : { [GEN_AI_ATTRIBUTES.REQUEST_MAX_TOKENS]: request.maxTokens }),
      },
    },
    parent,
  );
  return { span, within: trace.setSpan(parent, span) };
}

/**
 * Runs `call` with `within` the active context; a context manager that throws before the call
 * runs leaves it to run outside it (once: a throw of the call itself is the call's).
 */
function callWithin<T>(within: Context, call: () => T): T {
  let called = false;
  try {
    return context.with(within, () => {
      called = true;
      return call();
    });
  } catch (error) {
    if (called) throw error;
    return call();
  }
}

/** The reply's usage on `span`; a usage the compactor refuses fails the span as the compaction fails. */
function recordReply(span: Span, reply: unknown): void {
  if (!span.isRecording()) return;
  const { usage, refused } = replyUsage(reply);
  if (usage !== undefined) span.setAttributes(genAiUsageAttributes(usage));
  // The compaction fails with `llm_error` for this reply: its span says so too.
  if (refused) markFailed(span, "llm_error");
}

/** Marks `span` as failed with `type` as its `error.type`. */
function markFailed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(GEN_AI_ATTRIBUTES.ERROR_TYPE, type);
}

/**
 * Ends `span` as failed when the request's `signal` fires (`error.type` `timeout` for a
 * deadline's reason, else `aborted`): a client that ignores its signal may never settle, and its
 * span would stay open. `ended` tells the request's later settle to leave the span alone.
 */
function endOnAbort(
  span: Span,
  signal: AbortSignal | undefined,
): { readonly ended: boolean; release(): void } {
  const state = { ended: false, release: () => {} };
  if (!isAbortSignal(signal)) return state;
  // Runs in the signal's dispatch, where a throw would surface as an uncaught exception.
  const end = () => {
    if (state.ended) return;
    state.ended = true;
    safely(() => markFailed(span, isTimeoutReason(signal.reason) ? "timeout" : "aborted"));
    endSafely(span);
  };
  if (signal.aborted) end();
  else {
    signal.addEventListener("abort", end, { once: true });
    state.release = () => signal.removeEventListener("abort", end);
  }
  return state;
}

/**
 * Whether an abort's reason is a deadline: the summary's own timeout aborts with p-timeout's
 * `TimeoutError`, `AbortSignal.timeout` with a `TimeoutError` DOMException.
 */
function isTimeoutReason(reason: unknown): boolean {
  return typeof reason === "object" && reason !== null && (reason as Error).name === "TimeoutError";
}

/** `error.type`: a `CompactionError`'s code, else the error's class name (bounded). */
function errorType(error: unknown): string {
  return boundedText(errorTypeOf(error));
}

function errorTypeOf(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    // Bad input is named by its class, as before it had a code.
    if (ValidationError.isInstance(error)) return error.name;
    if ("code" in error && typeof error.code === "string") return error.code;
    if (error instanceof Error) return error.name;
  }
  return "_OTHER";
}
