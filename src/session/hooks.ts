import type { Message } from "../core/message.js";
import type { CompactionTrigger } from "./events.js";

/**
 * The record of one compaction that changed the conversation (like Claude Code's
 * `compact_boundary`): hosts persist it, show it, or count it.
 */
export interface CompactionBoundary {
  /** `auto` (`maybeCompact`) or `manual` (`forceCompact`). */
  trigger: CompactionTrigger;
  /** The compactor's strategy: `threshold`, `llm`, `hybrid`, or `custom` for a compactor without a `strategy` name. */
  strategy: string;
  /** Local token estimate of the messages before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Turns folded into a summary. */
  turnsCompacted: number;
  /** Tool results summarized or redacted. */
  toolResultsCompacted: number;
  /** Tool inputs cleared. */
  toolInputsCleared: number;
  /** The oldest messages removed (`dropOldest`), archived under the notice's recall handle. */
  messagesRemoved: number;
  /**
   * `thinking`/`redacted_thinking` blocks removed after the first changed message, so that no
   * later request fails the API's preserved-thinking prefix check; 0 with `keepStaleThinking`.
   */
  thinkingBlocksDropped: number;
  /** Their estimated tokens. */
  thinkingTokensDropped: number;
  /**
   * Whether the tool exchange the conversation ended in was written out as text: its assistant
   * message lost its thinking, and a request continuing a tool loop needs it.
   */
  toolExchangeClosed: boolean;
  /**
   * What the first request after it reads from the prompt cache and what it writes, estimated:
   * the tokens before the first message the compaction changed (the system prompt and tools as
   * the measure counts them, and the messages kept as they were), and those from it on.
   */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** What `beforeCompact` is told about the compaction about to run. */
export interface BeforeCompactContext {
  trigger: CompactionTrigger;
  /** The compactor's strategy name (see {@link CompactionBoundary.strategy}). */
  strategy: string;
  /** The session's context measure and window. */
  contextUsed: number;
  contextLimit: number;
  /** The conversation as it is now (read-only). */
  messages: readonly Message[];
  /** Instructions already given for this compaction (`forceCompact({ instructions })`). */
  instructions?: string;
}

/** What `beforeCompact` may answer: veto this compaction, or add instructions for the summarizer. */
export interface BeforeCompactDecision {
  /** Skip this compaction (reported as `compaction_skipped` with reason `vetoed`). */
  veto?: boolean;
  /** Appended to the summarizer's instructions for this compaction. */
  instructions?: string;
}

/** Called before each compactor runs; may be async. A hook that throws is ignored (and logged). */
export type BeforeCompactHook = (
  context: BeforeCompactContext,
) => BeforeCompactDecision | undefined | Promise<BeforeCompactDecision | undefined>;

/** Called after each compactor that changed the conversation; may be async. */
export type AfterCompactHook = (boundary: CompactionBoundary) => void | Promise<void>;
