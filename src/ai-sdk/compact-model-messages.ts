import type { ModelMessage } from "ai";
import * as z from "zod/mini";
import { isAbortSignal } from "../core/abort.js";
import type { CompactionResult } from "../core/compactor.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { StatelessCompaction } from "../session/stateless-compaction.js";
import {
  CONTEXT_TOKENS_SCHEMA,
  STATELESS_COMPACTION_SHAPE,
  type StatelessCompactionOptions,
} from "../session/stateless-options.js";
import { compactStep } from "./compact-step.js";

/** Options of {@link compactModelMessages}. */
export interface CompactModelMessagesOptions extends StatelessCompactionOptions {
  /**
   * The context the conversation takes, when known (the last response's usage plus what came
   * after): a finite number of tokens, 0 or more. One far below the local estimate of the
   * messages (a gateway's 0) is not trusted, as the session trusts no such usage.
   * @default the local estimate of the messages plus `overheadTokens`
   */
  contextUsed?: number;
  /** Cancels an asynchronous compactor and the archive's writes. @default none */
  signal?: AbortSignal;
}

/** What {@link compactModelMessages} returns. */
export interface CompactedModelMessages {
  /** The messages to send: the input array itself when nothing changed. */
  messages: ModelMessage[];
  /** Whether the messages changed (compacted, or a text too long for the window clamped). */
  compacted: boolean;
  /** What the compactor reported. */
  result: CompactionResult;
  /** The context the decision was taken on. */
  contextUsed: number;
}

const OptionsSchema = z.strictObject({
  ...STATELESS_COMPACTION_SHAPE,
  contextUsed: z.exactOptional(CONTEXT_TOKENS_SCHEMA),
  signal: z.exactOptional(z.custom<AbortSignal>(isAbortSignal, "must be an AbortSignal")),
}) as unknown as z.ZodMiniType<CompactModelMessagesOptions>;

/**
 * Compacts a whole AI SDK conversation in one call, as a stateless server does for each
 * request it gets (an HTTP handler, a `prepareStep` without memory): converts it, runs the
 * compactor if its threshold is crossed, and converts back, handing unchanged messages back as
 * the same objects. Resolves to the input array itself when nothing changed.
 *
 * @example
 * const { messages: compacted } = await compactModelMessages(messages, { contextLimit: 200_000 });
 * const result = await generateText({ model, messages: compacted });
 * @throws {ValidationError} for bad options or malformed messages; a failing asynchronous
 * compactor rejects with its `CompactionError`.
 */
export async function compactModelMessages(
  messages: readonly ModelMessage[],
  options: CompactModelMessagesOptions,
): Promise<CompactedModelMessages> {
  // Checked before anything reads it (a stateless handler's body may be anything).
  if (!Array.isArray(messages)) {
    throw new ValidationError("AI SDK messages", [
      { path: [], message: "must be an array of messages" },
    ]);
  }
  const parsed = parseOrThrow(OptionsSchema, options, "compactModelMessages options");
  const step = await compactStep(new StatelessCompaction(parsed), {
    messages,
    known: undefined,
    contextUsed: parsed.contextUsed,
    signal: parsed.signal,
  });
  const { sent, contextUsed, result } = step;
  if (sent === undefined) {
    return { messages: messages as ModelMessage[], compacted: false, result, contextUsed };
  }
  return { messages: sent, compacted: true, result, contextUsed };
}
