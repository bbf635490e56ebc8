import { context, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import type { LlmClient, LlmRequest } from "../core/llm-client.js";
import { GEN_AI_ATTRIBUTES } from "./attributes.js";
import { attachSummarizerRuns } from "./summarizer-link.js";
import { assertTracer, tracerOf } from "./tracer.js";
import { genAiUsageAttributes, replyUsage } from "./usage.js";

/** Options of {@link traceLlmClient}. */
export interface TraceLlmClientOptions {
  /** The model the client asks, as `gen_ai.request.model` (e.g. `"claude-haiku-4-5"`). */
  model: string;
  /** `gen_ai.provider.name`, e.g. `"anthropic"` or `"openai"`. @default not set */
  provider?: string;
  /** The tracer. @default the global provider's tracer `agent-compaction` */
  tracer?: Tracer;
}

function validate(client: unknown, options: unknown): TraceLlmClientOptions {
  const issues: ValidationIssue[] = [];
  const hasComplete =
    typeof client === "object" &&
    client !== null &&
    "complete" in client &&
    typeof client.complete === "function";
  if (!hasComplete)
    issues.push({ path: ["client"], message: "must be an LlmClient (with complete)" });
  const given = (typeof options === "object" && options !== null ? options : {}) as Record<
    string,
    unknown
  >;
  if (typeof given.model !== "string" || given.model.trim() === "") {
    issues.push({ path: ["model"], message: "must be a non-empty string" });
  }
  if (given.provider !== undefined && typeof given.provider !== "string") {
    issues.push({ path: ["provider"], message: "must be a string" });
  }
  if (issues.length > 0) throw new ValidationError("traceLlmClient options", issues);
  assertTracer(given.tracer, "traceLlmClient options");
  return given as unknown as TraceLlmClientOptions;
}

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
  const { model, provider, tracer } = validate(client, options);
  const traced: LlmClient = {
    // Kept, so a client that reads the prompt cache still gets the conversation.
    ...(client.acceptsConversation === true ? { acceptsConversation: true } : {}),
    async complete(request: LlmRequest) {
      const parentSpan = runs.parentOf(request.runId);
      const parent =
        parentSpan === undefined ? context.active() : trace.setSpan(context.active(), parentSpan);
      const span = tracerOf(tracer).startSpan(
        `chat ${model}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [GEN_AI_ATTRIBUTES.OPERATION_NAME]: "chat",
            [GEN_AI_ATTRIBUTES.REQUEST_MODEL]: model,
            ...(provider === undefined ? {} : { [GEN_AI_ATTRIBUTES.PROVIDER_NAME]: provider }),
            ...(request.maxTokens === undefined
              ? {}
              : { [GEN_AI_ATTRIBUTES.REQUEST_MAX_TOKENS]: request.maxTokens }),
          },
        },
        parent,
      );
      try {
        const reply = await context.with(trace.setSpan(parent, span), () =>
          client.complete(request),
        );
        const usage = span.isRecording() ? replyUsage(reply) : undefined;
        if (usage !== undefined) span.setAttributes(genAiUsageAttributes(usage));
        return reply;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute(GEN_AI_ATTRIBUTES.ERROR_TYPE, errorType(error));
        throw error;
      } finally {
        span.end();
      }
    },
  };
  const runs = attachSummarizerRuns(traced);
  return traced;
}

/** `error.type`: a `CompactionError`'s code, else the error's class name. */
function errorType(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    // Bad input is named by its class, as before it had a code.
    if (ValidationError.isInstance(error)) return error.name;
    if ("code" in error && typeof error.code === "string") return error.code;
    if (error instanceof Error) return error.name;
  }
  return "_OTHER";
}
