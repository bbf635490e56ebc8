import { CompactionError, ValidationError } from "./errors.js";
import type { Message } from "./message.js";
import { methodsSchema } from "./option-schemas.js";
import { type CompactionUsage, usageIssues } from "./usage.js";

/** One completion request to a summarising model. */
export interface LlmRequest {
  /**
   * The user prompt: the transcript and the instructions; with `conversation`, the summary
   * instruction alone, to be appended as the final user message.
   */
  prompt: string;
  /**
   * The system prompt. With `conversation` it is not sent as the system prompt (the agent's own
   * is, so the prefix matches): a client puts it before the instruction instead.
   */
  system?: string;
  /** The most tokens the reply may take. */
  maxTokens?: number;
  /** Aborts the request (timeout or caller cancellation). */
  signal?: AbortSignal;
  /**
   * The session's compaction run this request serves (its `compaction_start` event's `runId`):
   * what ties the request to that run, e.g. for a tracing client to parent its span under the
   * run's (`traceLlmClient`). A client may ignore it. @default none (a request made outside a run)
   */
  runId?: string;
  /**
   * The conversation as the agent last sent it, set only for a client whose
   * `acceptsConversation` is true: the client sends these messages unchanged, with the agent's
   * own model, system prompt and tools, and `prompt` appended as the final user message, so the
   * provider reads the prefix from its prompt cache. @default none (a plain transcript request)
   */
  conversation?: readonly Message[];
}

/** An {@link LlmClient} given as an option: an object with `complete`. */
export const LLM_CLIENT_SCHEMA = /* @__PURE__ */ methodsSchema<LlmClient>(
  "an LlmClient",
  "complete",
);

/** A reply with what it cost: its text, and the tokens the provider billed for it. */
export interface LlmReply {
  /** The reply's text. */
  text: string;
  /** The tokens billed (cache reads and writes included); absent when not known. */
  usage?: CompactionUsage;
}

/**
 * The model behind `LLMCompactor`: takes a prompt, returns text (or text and usage, so the
 * summary's cost is counted).
 */
export interface LlmClient {
  complete(request: LlmRequest): Promise<string | LlmReply>;
  /**
   * Whether `complete` takes `conversation` (sends the agent's own messages, system prompt and
   * tools with the instruction appended). @default false
   */
  readonly acceptsConversation?: boolean;
}

/**
 * Reads the usage a client reported with its reply: a copy with `inputTokens` and
 * `outputTokens` (0 when absent) and the cache counts it reported.
 *
 * @throws {ValidationError} naming the field when a count is not a whole number ≥ 0.
 */
export function readLlmUsage(usage: unknown, subject = "LlmReply.usage"): CompactionUsage {
  const issues = usageIssues(usage);
  if (issues.length > 0) throw new ValidationError(subject, issues);
  const record = usage as CompactionUsage;
  return {
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens ?? 0,
    ...(record.cacheCreationInputTokens === undefined
      ? {}
      : { cacheCreationInputTokens: record.cacheCreationInputTokens }),
    ...(record.cacheReadInputTokens === undefined
      ? {}
      : { cacheReadInputTokens: record.cacheReadInputTokens }),
  };
}

/** What a summary reply that called a tool instead is told with ({@link assertSummaryFinished}). */
export const SUMMARY_CALLED_A_TOOL = "the model called a tool instead of writing the summary";
/** What a summary reply the provider declined or blocked is told with. */
export const SUMMARY_DECLINED = "the request was declined: continue without a summary";

/**
 * Throws an `llm_error` when a summary reply stopped before its text was whole: `reason` as the
 * provider names it, `unfinished` the reasons that mean so (cut at its token limit, a tool
 * called instead, the request declined), each with what to do. Such a text is no summary: a
 * preamble to a tool call or half a summary would stand for the whole conversation.
 */
export function assertSummaryFinished(
  what: string,
  reason: unknown,
  unfinished: Readonly<Record<string, string>>,
): void {
  if (typeof reason !== "string" || !Object.hasOwn(unfinished, reason)) return;
  throw new CompactionError("llm_error", `${what} stopped with "${reason}": ${unfinished[reason]}`);
}
