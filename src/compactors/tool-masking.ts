import {
  type CompactionContext,
  type CompactionOutput,
  type CompactionResult,
  emptyCompactionResult,
} from "../core/compactor.js";
import { readableMessages } from "../core/conversation-structure.js";
import type {
  ContentBlock,
  Message,
  ToolResultBlock,
  ToolUseBlock,
  TurnId,
} from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { withMessageContent, withResultContent } from "../core/message-shapes.js";
import { estimateBlockTokens, estimateResultTextTokens } from "../core/tokens.js";
import { isAmongTurns, isSummaryTurn } from "../core/turn.js";
import { clearedToolInput, isClearedToolInput } from "./cleared-tool-input.js";
import { type MaskingRecord, NO_RESULTS, pastMasking, recordedMasking } from "./masking-reuse.js";
import { isPlaceholder, placeholderOf } from "./result-placeholder.js";
import {
  keptPartFrom,
  keptToolUses,
  lastIndexWhere,
  newestResultsIndex,
  recentStart,
  turnsFrom,
} from "./retention.js";
import { minimumGain, targetBudget } from "./target.js";
import { indexToolUses, type ToolUseIndex, useAnswered } from "./tool-use-index.js";

/** What replaces a tool result's content in `redact` mode. */
export const REDACTION_NOTICE = "[Content redacted for context management]";

/**
 * How old tool results are shrunk: `summarize` by their compact summary (left alone without
 * one), `redact` by {@link REDACTION_NOTICE}, `summarize_or_redact` by the summary where one
 * exists and the notice otherwise.
 */
export type ToolCompaction = "summarize" | "redact" | "summarize_or_redact";

const NOTHING_ELIGIBLE =
  "no tool result is old enough to compact, or each already is (or is excluded)";

/** The masking rules shared by `ThresholdCompactor` and `HybridCompactor`. */
export interface ToolMaskingSettings {
  keepRecentTurns: number;
  /** The compactor's threshold: with the target, bounds what `keepRecentToolUses` keeps. */
  threshold?: number | undefined;
  /** The placeholder lists the paths the result named (` (mentions: …)`). */
  keepPathMentions?: boolean | undefined;
  keepRecentToolUses?: number | false | undefined;
  /** The newest share of the window whose results stay whole (needs the context's window). */
  keepRecentShare?: number | undefined;
  toolCompaction: ToolCompaction;
  excludeTools: readonly string[];
  clearToolInputs: boolean | readonly string[];
  clearAtLeast: number;
  targetUtilization?: number | undefined;
}

function clearsInputsOf(setting: boolean | readonly string[], name: string): boolean {
  return setting === true || (Array.isArray(setting) && setting.includes(name));
}

/**
 * `compacted` (a copy of `conversation`, made now if undefined) with the block at
 * `blockIndex` of message `messageIndex` replaced; the message and its content are copied on
 * their first change.
 */
function edited(
  compacted: Message[] | undefined,
  conversation: readonly Message[],
  messageIndex: number,
  blockIndex: number,
  block: ContentBlock,
): Message[] {
  const messages = compacted ?? conversation.slice();
  let message = messages[messageIndex]!;
  if (message === conversation[messageIndex]) {
    message = withMessageContent(message, message.content.slice());
    messages[messageIndex] = message;
  }
  message.content[blockIndex] = block;
  return messages;
}

/** What a masking pass reads, worked out once before its scan. */
interface MaskingScope {
  conversation: readonly Message[];
  summaries: ReadonlyMap<string, string>;
  settings: ToolMaskingSettings;
  /** Messages from here on belong to the recent turns. */
  start: number;
  /** The recent turns: an older message in one of them is recent too (irregular numbering). */
  recentTurns: TurnId[];
  excluded: ReadonlySet<string>;
  /** The tool uses, when a result's tool name or recency is needed. */
  uses: ToolUseIndex | undefined;
  /** The tool uses, indexed once a result's own summary and the stored one differ. */
  allUses?: ToolUseIndex;
  /** Tool uses before this ordinal are old (`keepRecentToolUses`); `undefined`: by turn only. */
  oldestRecentUse: number | undefined;
  /** What past passes on the same conversation made, whose masked messages this one may reuse. */
  past?: MaskingRecord | undefined;
  /** The message whose results are never masked ({@link newestResultsIndex}). */
  protectedIndex: number;
  lastAssistant: number;
  /** Where the scan stops: the end with within-turn retention, else `start`. */
  scanEnd: number;
  budget: number | undefined;
}

/** The edits of a masking pass: the copy (made on the first change), its estimate and counts. */
interface MaskingEdits {
  compacted: Message[] | undefined;
  estimate: number;
  result: CompactionResult;
}

/**
 * Masks tool results (and optionally their inputs), oldest first. A result is eligible when
 * its turn is older than `keepRecentTurns`, or, with `keepRecentToolUses`, when its tool use
 * is not among the most recent ones; results of `excludeTools` and of the latest turn's newest
 * exchange never are. With a target budget it stops once the estimate fits; a rewrite freeing
 * less than `clearAtLeast` is skipped. A placeholder keeps the file paths its result mentioned
 * (` (mentions: src/a.ts)`). Pure and idempotent. `tokensBefore`, the conversation's
 * estimate, is passed when validation has already worked it out.
 */
export function maskToolResults(
  input: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  settings: ToolMaskingSettings,
  context?: CompactionContext,
  tokensBefore = estimateTokens(input),
): CompactionOutput {
  const conversation = readableMessages(input);
  const unchanged = (skipReason = NOTHING_ELIGIBLE): CompactionOutput => ({
    conversation: [...conversation],
    result: { ...emptyCompactionResult(), tokensBefore, tokensAfter: tokensBefore },
    skipReason,
  });
  const scope = maskingScope(conversation, summaries, settings, context, tokensBefore);
  if (scope === undefined) {
    if (conversation === input) recordedMasking(input)?.keepOnly(conversation, 0);
    return unchanged();
  }
  // Past passes and records serve the caller's own array, not a session's history (frozen, or
  // its view), which the session replaces by the output. A record is kept from a conversation's
  // second pass on: a first pass finds none (see pastMasking).
  if (conversation === input) scope.past = pastMasking(input);
  const edits: MaskingEdits = {
    compacted: undefined,
    estimate: tokensBefore,
    result: emptyCompactionResult(),
  };
  const scanned = scanResults(scope, edits);
  // The record keeps nothing of messages the conversation no longer holds.
  scope.past?.keepOnly(conversation, scanned);
  if (edits.compacted === undefined) return unchanged();
  // Each edit kept `estimate` exact (a message's estimate is the sum of its blocks'), so
  // there is no need for a second pass over the whole conversation.
  const tokensAfter = edits.estimate;
  if (tokensBefore - tokensAfter < minimumGain(settings.clearAtLeast, context))
    return unchanged(`masking would free ${tokensBefore - tokensAfter} tokens, under clearAtLeast`);
  return { conversation: edits.compacted, result: { ...edits.result, tokensBefore, tokensAfter } };
}

/**
 * Masks each eligible result before the scope's end, oldest first, until the budget is met;
 * returns where it stopped (the scope's end when it read every message before it). A
 * function of its own: V8 compiles its long loop apart from the pass around it, whose code
 * after the loop then keeps the type feedback it needs (inside one function, the loop's
 * on-stack compilation met it without any, and threw the code away on many calls).
 */
function scanResults(scope: MaskingScope, edits: MaskingEdits): number {
  const { conversation, scanEnd, protectedIndex, budget, past } = scope;
  const noticed = noticedBefore(scope);
  scan: for (let messageIndex = 0; messageIndex < scanEnd; messageIndex += 1) {
    const message = conversation[messageIndex]!;
    if (past !== undefined) {
      // What a past pass found of the message, still at its index: it is not read again. What
      // it found of another message there is let go.
      if (past.holds(messageIndex, message, NO_RESULTS)) continue;
      if (
        noticed?.holds(messageIndex, message, REDACTION_NOTICE) === true &&
        messageIndex !== protectedIndex
      ) {
        if (budget !== undefined && edits.estimate <= budget) return messageIndex;
        if (
          messageIndex < scope.start &&
          !noticed.inTurns(messageIndex, message, scope.recentTurns)
        ) {
          // What maskResult does to it: the notice's message, one more result redacted.
          reuse(scope, edits, messageIndex, noticed);
          edits.result.toolResultsRedacted += 1;
        }
        continue;
      }
      past.forgetOther(messageIndex, message);
    }
    if (message.role !== "user") {
      past?.note(messageIndex, message, NO_RESULTS);
      continue;
    }
    if (messageIndex === protectedIndex) continue;
    // Whether the message is in an old turn, and not the summary; worked out at its first result.
    let inOldTurn: boolean | undefined;
    const content = message.content;
    for (let blockIndex = 0; blockIndex < content.length; blockIndex += 1) {
      const block = content[blockIndex]!;
      if (block.type !== "tool_result") continue;
      if (budget !== undefined && edits.estimate <= budget) return messageIndex;
      if (inOldTurn === undefined) {
        if (isSummaryTurn(message.turnId)) continue scan;
        inOldTurn = messageIndex < scope.start && !isAmongTurns(scope.recentTurns, message.turnId);
      }
      maskResult(scope, edits, { messageIndex, blockIndex, block, inOldTurn });
    }
    if (inOldTurn === undefined) past?.note(messageIndex, message, NO_RESULTS);
  }
  return scanEnd;
}

/**
 * The record of past passes when what it holds of a message masked by {@link REDACTION_NOTICE}
 * is all {@link maskResult} would read: the notice its replacement (`redact`, no mentions), and
 * no tool use to look up (no tool excluded, no input cleared, no `keepRecentToolUses`). A
 * message it holds is not in the summary's turn (whose results are never masked).
 */
function noticedBefore(scope: MaskingScope): MaskingRecord | undefined {
  const { settings } = scope;
  return settings.toolCompaction === "redact" &&
    settings.keepPathMentions !== true &&
    scope.uses === undefined
    ? scope.past
    : undefined;
}

/** The message a past pass made of the one at `index` ({@link MaskingRecord.holds}), and its saving. */
function reuse(scope: MaskingScope, edits: MaskingEdits, index: number, record: MaskingRecord) {
  edits.estimate -= record.saved[index]!;
  edits.compacted ??= scope.conversation.slice();
  edits.compacted[index] = record.made[index]!;
}

/** The {@link MaskingScope} of a pass; `undefined` when nothing can be eligible. */
function maskingScope(
  conversation: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  settings: ToolMaskingSettings,
  context: CompactionContext | undefined,
  tokensBefore: number,
): MaskingScope | undefined {
  // Messages from `start` on belong to the recent turns; before it, a message is old unless
  // its (irregularly numbered) turn comes back in the recent part.
  const start = recentStart(conversation, settings.keepRecentTurns);
  const keepRecentToolUses =
    settings.keepRecentToolUses === false ? undefined : settings.keepRecentToolUses;
  if (start === 0 && keepRecentToolUses === undefined) return undefined;
  const excluded = new Set(settings.excludeTools);
  // The tool uses are needed only to know a result's tool name or its recency.
  const uses =
    keepRecentToolUses !== undefined || excluded.size > 0 || settings.clearToolInputs !== false
      ? indexToolUses(conversation)
      : undefined;
  return {
    conversation,
    summaries,
    settings,
    start,
    recentTurns: turnsFrom(conversation, start),
    excluded,
    uses,
    oldestRecentUse:
      keepRecentToolUses === undefined || uses === undefined
        ? undefined
        : uses.count - (keptToolUses(conversation, settings, context?.contextLimit) ?? 0),
    protectedIndex: newestResultsIndex(conversation),
    lastAssistant: lastIndexWhere(conversation, (message) => message.role === "assistant"),
    // Without within-turn retention nothing from `start` on is eligible; nothing in the newest
    // share of the window ever is.
    scanEnd: Math.min(
      keepRecentToolUses === undefined ? start : conversation.length,
      // A manual compaction keeps the newest tool uses, not a share of a window it ignores.
      context?.trigger === "manual"
        ? conversation.length
        : keptPartFrom(conversation, settings, context?.contextLimit),
    ),
    budget: targetBudget(settings.targetUtilization, context, tokensBefore),
  };
}

/** Where a tool result sits, and whether its message is in an old turn. */
interface ResultSite {
  messageIndex: number;
  blockIndex: number;
  block: ToolResultBlock;
  inOldTurn: boolean;
}

/**
 * Replaces the content of the result at `site` by `replacement` (from `base`), into `edits`;
 * whether it did: a result smaller than its replacement stays (compaction never grows a
 * conversation). What the pass before made of the same message the same way is reused.
 */
function replaceContent(
  scope: MaskingScope,
  edits: MaskingEdits,
  site: ResultSite,
  { base, replacement }: { base: string; replacement: string },
): boolean {
  const { conversation } = scope;
  const { block, messageIndex: index } = site;
  const message = conversation[index]!;
  // Masked the same way by a pass before (a message of one block): its message and saving. A
  // result it masked was no placeholder, unless the placeholder carries mentions: then it is
  // told by its base too, which the record does not hold.
  const record = message.content.length === 1 ? scope.past : undefined;
  const held = record?.holds(index, message, replacement) === true;
  if (!(held && base === replacement) && isPlaceholder(block.content, base, replacement))
    return false;
  if (held) {
    reuse(scope, edits, index, record!);
    return true;
  }
  const saved = estimateBlockTokens(block) - estimateResultTextTokens(block.toolUseId, replacement);
  if (saved < 0) return false;
  edits.estimate -= saved;
  const masked = withResultContent(block, replacement);
  edits.compacted = edited(edits.compacted, conversation, index, site.blockIndex, masked);
  record?.note(index, message, replacement, edits.compacted[index]!, saved);
  return true;
}

/**
 * The summary a result is masked to: the one stored for its id, else its own; its own (or none)
 * when a later call has its id (a provider numbering each reply's calls: the stored one is
 * that call's).
 */
function summaryOf(
  scope: MaskingScope,
  block: ToolResultBlock,
  messageIndex: number,
): string | undefined {
  const stored = scope.summaries.get(block.toolUseId);
  const own = block.compactSummary;
  if (stored === undefined || stored === own) return own;
  scope.allUses ??= scope.uses ?? indexToolUses(scope.conversation);
  const sites = scope.allUses.byId.get(block.toolUseId);
  return Array.isArray(sites) && sites.at(-1)!.messageIndex > messageIndex ? own : stored;
}

/** Masks one eligible result (and clears its tool's input, when set to), into `edits`. */
function maskResult(scope: MaskingScope, edits: MaskingEdits, site: ResultSite): void {
  const { settings, conversation } = scope;
  const { block } = site;
  const use =
    scope.uses === undefined
      ? undefined
      : useAnswered(scope.uses, block.toolUseId, site.messageIndex);
  if (use !== undefined && scope.excluded.has(use.block.name)) return;
  const oldUse =
    scope.oldestRecentUse !== undefined &&
    (use === undefined || use.ordinal < scope.oldestRecentUse);
  if (!site.inOldTurn && !oldUse) return;

  const summary =
    settings.toolCompaction === "redact" ? undefined : summaryOf(scope, block, site.messageIndex);
  const base = summary ?? (settings.toolCompaction === "summarize" ? undefined : REDACTION_NOTICE);
  if (base === undefined) return;
  // Without mentions the placeholder is the base itself: nothing to build.
  const replacement =
    settings.keepPathMentions === true ? placeholderOf(block, base, true).replacement : base;
  if (replaceContent(scope, edits, site, { base, replacement })) {
    if (summary === undefined) edits.result.toolResultsRedacted += 1;
    else edits.result.toolResultsSummarized += 1;
  }
  if (
    use === undefined ||
    use.messageIndex === scope.lastAssistant ||
    !clearsInputsOf(settings.clearToolInputs, use.block.name) ||
    isClearedToolInput(use.block.input)
  )
    return;
  const cleared: ToolUseBlock = { ...use.block, input: clearedToolInput(use.block.input) };
  const inputSaved = estimateBlockTokens(use.block) - estimateBlockTokens(cleared);
  if (inputSaved <= 0) return;
  edits.estimate -= inputSaved;
  edits.compacted = edited(
    edits.compacted,
    conversation,
    use.messageIndex,
    use.blockIndex,
    cleared,
  );
  edits.result.toolInputsCleared = (edits.result.toolInputsCleared ?? 0) + 1;
}
