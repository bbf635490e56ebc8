import * as z from "zod/mini";
import {
  type ContextOverflowRefusal,
  contextOverflowOf,
  isContextOverflowError,
} from "../core/context-overflow.js";
import { parseOrThrow } from "../core/errors.js";
import {
  ABORT_SIGNAL_SCHEMA,
  functionSchema,
  methodsSchema,
  optionsSchema,
  STRING_SCHEMA,
} from "../core/option-schemas.js";
import type { ForceCompactOptions, ForceCompactResult } from "./compaction-report.js";

/** What {@link withOverflowRecovery} needs of a session (`AgentSession` and `StoredSession` fit). */
export interface OverflowRecoverySession {
  forceCompact(options?: ForceCompactOptions): Promise<ForceCompactResult>;
  /** Told the window a refusal names, before the compaction (sessions learn it). */
  recordContextOverflow?(refusal: ContextOverflowRefusal): void | Promise<void>;
}

/** What a recovery did, for {@link OverflowRecoveryOptions.onRecovery}. */
export interface OverflowRecovery {
  /** The provider's refusal that started it. */
  error: unknown;
  /** What the compaction did; the request is sent again only when it changed the conversation. */
  result: ForceCompactResult;
}

/** Options of {@link withOverflowRecovery}. */
export interface OverflowRecoveryOptions {
  /**
   * Whether an error is the provider's refusal for context length; anything else is rethrown
   * at once. Each adapter has a precise one (`isAnthropicContextOverflow`,
   * `isOpenAIContextOverflow`, `isAiSdkContextOverflow`).
   * @default a 400 worded as Anthropic's `prompt is too long` or OpenAI's `context_length_exceeded`
   */
  isOverflow?: (error: unknown) => boolean;
  /** Extra instructions for the recovery compaction's summarizer. @default none */
  instructions?: string;
  /** Cancels the recovery compaction (it rejects as `aborted`). @default none */
  signal?: AbortSignal;
  /** Told after the recovery compaction, before the request is sent again. @default none */
  onRecovery?: (recovery: OverflowRecovery) => void;
}

/** Schema of `withOverflowRecovery`'s arguments, checked as one. */
const OverflowRecoveryArgumentsSchema = /* @__PURE__ */ (() =>
  z.object({
    session: methodsSchema<OverflowRecoverySession>("a session", "forceCompact"),
    send: functionSchema<unknown>(),
    options: optionsSchema({
      isOverflow: z.exactOptional(functionSchema<OverflowRecoveryOptions["isOverflow"]>()),
      instructions: z.exactOptional(STRING_SCHEMA),
      signal: z.exactOptional(ABORT_SIGNAL_SCHEMA),
      onRecovery: z.exactOptional(functionSchema<OverflowRecoveryOptions["onRecovery"]>()),
    }),
  }))();

/**
 * Sends a model request and survives the provider's refusal for context length: on such a
 * refusal it tells the session the window the refusal names (`recordContextOverflow`: a window
 * below the session's becomes its window, so the next requests are compacted to it and not
 * refused again) and the size of the refused request (what it held that the session never saw,
 * a system prompt or tools, counts from then on), force-compacts the session and calls `send` once more (`attempt` 1), so `send`
 * must build its request from `session.messages` each time. Any other error, and a second
 * refusal, are rethrown as they came; a failed compaction rejects with its `CompactionError`,
 * and one that changed nothing rethrows the refusal (the same request would be refused again).
 * The summarizer's own request fits: a conversation refused as too long is summarized from
 * its transcript, in parts of `maxTranscriptTokens`.
 *
 * @example
 * const response = await withOverflowRecovery(
 *   session,
 *   () => client.messages.create({ model, max_tokens, messages: toAnthropicMessages(session.messages) }),
 *   { isOverflow: isAnthropicContextOverflow },
 * );
 * @throws {ValidationError} when an argument is not what it should be.
 */
export async function withOverflowRecovery<T>(
  session: OverflowRecoverySession,
  send: (attempt: number) => Promise<T>,
  options: OverflowRecoveryOptions = {},
): Promise<T> {
  const {
    isOverflow = isContextOverflowError,
    instructions,
    signal,
    onRecovery,
  } = parseOrThrow(
    OverflowRecoveryArgumentsSchema,
    { session, send, options },
    "withOverflowRecovery arguments",
  ).options;
  try {
    return await send(0);
  } catch (error) {
    if (!isOverflow(error)) throw error;
    // A refusal that names the model's window: the session compacts to it, now and from now on.
    const refusal = contextOverflowOf(error);
    if (refusal !== undefined) await session.recordContextOverflow?.(refusal);
    const result = await session.forceCompact({
      ...(instructions === undefined ? {} : { instructions }),
      ...(signal === undefined ? {} : { signal }),
    });
    onRecovery?.({ error, result });
    // Unchanged (no boundary, nothing trimmed): the same request would be refused again.
    const { boundaries, tokensBefore = 0, tokensAfter = tokensBefore } = result;
    if (boundaries.length === 0 && tokensAfter >= tokensBefore) throw error;
  }
  return send(1);
}
