import type { ArchiveRecord } from "../core/archive-record.js";
import { isSystemMessage } from "../core/conversation-structure.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { isThinking, keepThinkingValid } from "../core/preserved-thinking.js";
import { tokensToChars } from "../core/tokens.js";
import { clampMessage, clampRecord, holdsLongText } from "./clamp.js";

/** What {@link statelessIntake} made of new messages. */
export interface StatelessIntake {
  /** The messages, each text too long for the window clamped. */
  messages: Message[];
  /** The positions (in `messages`) of those clamped. */
  clamped: number[];
  /** What clamping cut, for the archive. */
  records: ArchiveRecord[];
  /** What the intake's walk saw of the messages, for a compaction of them alone. */
  facts: IntakeFacts;
  /** Whether thinking a clamp made stale was removed (then more than `clamped` changed). */
  repaired: boolean;
}

/**
 * What the intake's walk over every message saw, so that the compaction of those messages
 * alone (a conversation seen once) does not walk them again: the ids of the system messages
 * (pinned), and whether any message holds a thinking block.
 */
export interface IntakeFacts {
  systemIds: Set<string>;
  thinking: boolean;
}

/** What a stateless path's intake takes from its settings. */
export interface StatelessIntakeSettings {
  /** The most tokens one text may hold (`maxBlockShare` of the window). */
  maxBlockTokens: number;
  /** Names the handle of each text clamped (none without an archive). */
  clampNamer: ((original: string, toolUseId: string | undefined) => string) | undefined;
  keepStaleThinking: boolean;
  clock: Clock;
}

/**
 * New messages as the session's intake takes them: each text too long for the window clamped
 * (its original a record for the archive), the thinking a clamp made stale removed, and what the
 * walk saw of them ({@link IntakeFacts}), in one walk over their blocks.
 */
export function statelessIntake(
  messages: readonly Message[],
  settings: StatelessIntakeSettings,
): StatelessIntake {
  const { maxBlockTokens, clampNamer: handle } = settings;
  const facts: IntakeFacts = { systemIds: new Set(), thinking: false };
  const intake: StatelessIntake = {
    messages: messages.slice(),
    clamped: [],
    records: [],
    facts,
    repaired: false,
  };
  const maxChars = tokensToChars(maxBlockTokens);
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    // One walk over the blocks: any message may hold thinking, or be a system message (the
    // schema allows either of either role); only a user message is clamped.
    const { content } = message;
    let long = false;
    for (let at = 0; at < content.length; at += 1) {
      const block = content[at]!;
      if (isThinking(block)) facts.thinking = true;
      else if (!long && message.role === "user") long = holdsLongText(block, maxChars);
    }
    if (content.length === 1 && isSystemMessage(message)) facts.systemIds.add(message.id);
    if (!long) continue;
    const { message: clamped, clamped: blocks } = clampMessage(message, maxBlockTokens, handle);
    if (blocks.length === 0) continue;
    intake.messages[index] = clamped;
    intake.clamped.push(index);
    for (const block of blocks)
      if (block.handle !== undefined)
        intake.records.push(clampRecord(block.handle, block, message));
  }
  // Thinking after a text clamped here was made on the whole text: stale (see the session's).
  if (intake.clamped.length > 0 && facts.thinking && !settings.keepStaleThinking) {
    const { conversation, repair } = keepThinkingValid(messages, intake.messages, settings.clock);
    intake.repaired = repair.thinkingBlocksDropped > 0;
    intake.messages = conversation;
  }
  return intake;
}
