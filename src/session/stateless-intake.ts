import type { ArchiveRecord } from "../core/archive-record.js";
import { isSystemMessage } from "../core/conversation-structure.js";
import { closeInterruptedCalls, openCalls } from "../core/interrupted-calls.js";
import type { LateResults } from "../core/late-results.js";
import type { Message } from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import {
  awaitsCallsWithThinking,
  isThinking,
  keepThinkingValid,
} from "../core/preserved-thinking.js";
import { tokensToChars } from "../core/tokens.js";
import { clampMessage, clampRecord, holdsLongText } from "./clamp.js";

/** What {@link statelessIntake} made of new messages. */
export interface StatelessIntake {
  /** The messages, calls the conversation went on without closed, each text too long clamped. */
  messages: Message[];
  /** The positions (in `messages`) of those clamped. */
  clamped: number[];
  /** What clamping cut, for the archive. */
  records: ArchiveRecord[];
  /** What the intake's walk saw of the messages, for a compaction of them alone. */
  facts: IntakeFacts;
  /**
   * Whether more than `clamped` changed: calls were closed (messages may have been added), or
   * thinking a clamp made stale was removed.
   */
  repaired: boolean;
}

/**
 * What the intake's walk over every message saw, so that the compaction of those messages
 * alone (a conversation seen once) does not walk them again: the ids of the system messages
 * that open it (pinned), and whether any message holds a thinking block.
 */
export interface IntakeFacts {
  leadingSystemIds: Set<string>;
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
  /** A tool result given only after an assistant message: kept or told as text. @default "told" */
  lateResults?: LateResults | undefined;
}

/**
 * New messages as the session's intake takes them: each tool call the conversation went on
 * without closed by an error result (`closeInterruptedCalls`: the session closes them when the
 * user goes on, and refuses a history that left one open), each text too long for the window
 * clamped (its original a record for the archive), the thinking a clamp made stale removed, and
 * what the walk saw of them ({@link IntakeFacts}), in one walk over their blocks (two, after a
 * call was closed). `before`: the messages before them (a history known already), whose calls
 * waiting at its end the first may answer.
 *
 * Thinking after a closed call stays: no provider took the history with the call open, so the
 * thinking was made over a closed one, and this one is the same at every request.
 */
export function statelessIntake(
  messages: readonly Message[],
  settings: StatelessIntakeSettings,
  before: readonly Message[] = [],
): StatelessIntake {
  const { intake, callsLeft } = takeIn(messages, settings, openCalls(before).ids);
  if (!callsLeft) return intake;
  const closed = closeInterruptedCalls(messages, settings.clock, before, settings.lateResults);
  if (closed === messages) return intake;
  return { ...takeIn(closed, settings, []).intake, repaired: true };
}

/**
 * {@link statelessIntake} but for the calls left waiting (`waiting` of them before the first
 * message), and whether a message may have gone on without some: fewer results before it than
 * calls, told by counts in the same walk (`closeInterruptedCalls` then tells by ids).
 */
function takeIn(
  messages: readonly Message[],
  settings: StatelessIntakeSettings,
  waitingIds: readonly string[],
): { intake: StatelessIntake; callsLeft: boolean } {
  let waiting = waitingIds.length;
  const { maxBlockTokens, clampNamer: handle } = settings;
  const facts: IntakeFacts = { leadingSystemIds: new Set(), thinking: false };
  const intake: StatelessIntake = {
    messages: messages.slice(),
    clamped: [],
    records: [],
    facts,
    repaired: false,
  };
  let callsLeft = false;
  // The ids of the calls the last assistant message made, and of those answered since: a result
  // of another id (answering a call before it, or none) or of one answered already is told by
  // ids, as fewer or more results are.
  const callIds = new IdList(waitingIds);
  const answered = new IdList([]);
  const maxChars = tokensToChars(maxBlockTokens);
  const last = messages.length - 1;
  for (let index = 0; index <= last; index += 1) {
    const message = messages[index]!;
    // One walk over the blocks: any message may hold thinking, or be a system message (the
    // schema allows either of either role); only a user message is clamped.
    const { content } = message;
    const isUser = message.role === "user";
    if (!isUser) {
      callIds.clear();
      answered.clear();
    }
    let long = false;
    let calls = 0;
    let results = 0;
    let carried = 0;
    for (let at = 0; at < content.length; at += 1) {
      const block = content[at]!;
      const { type } = block;
      if (type === "tool_use") {
        callIds.add(block.id);
        calls += 1;
        continue;
      }
      if (type === "tool_result") {
        results += 1;
        const id = block.toolUseId;
        if (!callIds.has(id) || answered.has(id)) callsLeft = true;
        answered.add(id);
      } else if (type === "opaque") {
        carried += 1;
        continue;
      } else if (isThinking(block)) {
        facts.thinking = true;
        continue;
      }
      if (!long && isUser) long = holdsLongText(block, maxChars);
    }
    const system = content.length === 1 && isSystemMessage(message);
    if (system && facts.leadingSystemIds.size === index) facts.leadingSystemIds.add(message.id);
    // Results may come in a run of messages of results alone (`holdsResultsOnly`: provider
    // blocks carried whole count with them); the first message of another kind goes on. The
    // open tail (a last message of results alone) may still be answering.
    const resultsOnly = isUser && !system && results + carried === content.length;
    // Fewer results than calls waiting (a call the conversation went on without), or more (a
    // result given late, twice, or for no call): the calls are closed, told by ids.
    if ((waiting > results && !resultsOnly) || results > waiting) callsLeft = true;
    waiting = isUser ? (resultsOnly && index < last ? Math.max(0, waiting - results) : 0) : calls;
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
    // Unless the calls after that thinking wait for their results (an approval given, the tool
    // not run yet): the texts stay whole, as the request with the results needs it valid.
    if (awaitsCallsWithThinking(messages)) {
      intake.messages = messages.slice();
      intake.clamped = [];
      intake.records = [];
      return { intake, callsLeft };
    }
    const { conversation, repair } = keepThinkingValid(messages, intake.messages, settings.clock);
    intake.repaired = repair.thinkingBlocksDropped > 0;
    intake.messages = conversation;
  }
  return { intake, callsLeft };
}

/**
 * Ids in order, looked up in a set once there are many (one message of thousands of calls).
 * Cleared by its count: the array is written over, not made again, at each message.
 */
class IdList {
  #ids: string[];
  #count: number;
  #set: Set<string> | undefined;

  constructor(ids: readonly string[]) {
    this.#ids = ids.slice();
    this.#count = ids.length;
  }

  has(id: string): boolean {
    const ids = this.#ids;
    const count = this.#count;
    if (count <= 8) {
      for (let at = 0; at < count; at += 1) if (ids[at] === id) return true;
      return false;
    }
    this.#set ??= new Set(ids.slice(0, count));
    return this.#set.has(id);
  }

  add(id: string): void {
    this.#ids[this.#count] = id;
    this.#count += 1;
    this.#set?.add(id);
  }

  clear(): void {
    this.#count = 0;
    this.#set = undefined;
  }
}
