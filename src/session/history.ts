import { CompactionError, ValidationError, type ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { rememberConversation, rememberValid } from "../core/message-memo.js";
import { isSummaryTurn } from "../core/turn.js";
import { freezeMessages } from "../internal/frozen.js";
import { prefixView } from "../internal/prefix-view.js";
import { duplicateIdIssues } from "../internal/unique-ids.js";
import { ContextMeter } from "./context-meter.js";
import { type LandingRules, repairThinking } from "./landed-conversation.js";
import type { ParsedSnapshot } from "./snapshot.js";

/** A compaction's replacement of the history: `before`, at `generation`, by `conversation`. */
export interface Replacement {
  before: readonly Message[];
  generation: number;
  conversation: Message[];
  /** How what was appended meanwhile lands after it (its stale thinking). */
  rules: LandingRules;
}

/**
 * `conversation` (what a compaction made of `before`) with the last message of `before` as it is
 * `now`: results merged into it meanwhile (`replaceLast`) stay.
 * @throws {CompactionError} `aborted` when the compaction changed that message (the merge and
 * the change cannot both stand).
 */
function withMergedResults(
  conversation: Message[],
  before: readonly Message[],
  now: readonly Message[],
): Message[] {
  const at = before.length - 1;
  if (at < 0 || now[at] === before[at]) return conversation;
  if (conversation.at(-1) !== before[at])
    throw new CompactionError(
      "aborted",
      "tool results were merged while compacting into a message the compaction changed",
    );
  return [...conversation.slice(0, -1), now[at]!];
}

/** The owner of the turns `addUserText` opens (the summary turn is `u0`). */
export const USER_TURN_OWNER = "u";

/**
 * A session's messages and what is derived from them: ids in use, tool use ids in use, the
 * last user turn number, stored compact summaries, and the context meter. It trusts what it
 * is given: the session validates messages where they enter.
 */
/**
 * Up to this many messages, callers get a frozen array (every array operation, `structuredClone`
 * included); a longer history is handed out as a view made in O(1), since copying it on every
 * read after an append would be quadratic.
 */
export const SNAPSHOT_LIMIT = 2048;

export class History {
  readonly meter = new ContextMeter();
  /** Compact summaries by tool use id. */
  readonly summaries = new Map<string, string>();
  /** Ids of the messages no compaction may change or remove. */
  readonly pinned = new Set<string>();
  /** The messages; only appended to between replacements, while a {@link History.view} shares it. */
  #messages: Message[] = [];
  #view: readonly Message[] | undefined;
  /** The callers' view of the messages now, made in O(1) (see {@link History.view}). */
  #shared: readonly Message[] | undefined;
  /** How many of `#messages` some view handed out covers: those stay as they are. */
  #sharedLength = 0;
  #ids = new Set<string>();
  #lastTurnNumber = 0;
  #generation = 0;

  /** The messages, as a frozen snapshot made once per change: holding it is safe. */
  get messages(): readonly Message[] {
    this.#view ??= Object.freeze(this.#messages.slice());
    return this.#view;
  }

  /**
   * The messages for callers (`session.messages`), in bounded time per change however often it
   * is read: up to {@link SNAPSHOT_LIMIT} messages the frozen snapshot (a copy of at most that
   * many), above it a read-only view made in O(1) (see `prefixView`), so reading it after every
   * append of a long session costs nothing per message. Holding either is safe: it never changes.
   */
  get view(): readonly Message[] {
    if (this.#messages.length <= SNAPSHOT_LIMIT) return this.messages;
    if (this.#shared === undefined) {
      this.#shared = prefixView(this.#messages, this.#messages.length);
      this.#sharedLength = this.#messages.length;
      // Valid, ids unique, and what the meter sums: a caller's check of the view
      // (`toAnthropicMessages(session.messages)` on every step) is a lookup, not a walk.
      rememberConversation(this.#shared, this.meter.estimate);
    }
    return this.#shared;
  }

  /** Bumped by every replacement: a compaction computed on an older generation is stale. */
  get generation(): number {
    return this.#generation;
  }

  get lastTurnNumber(): number {
    return this.#lastTurnNumber;
  }

  set lastTurnNumber(value: number) {
    this.#lastTurnNumber = Math.max(this.#lastTurnNumber, value);
  }

  /**
   * Issues for ids in use (message ids, the `tool_use` ids of calls still waiting) or repeated
   * within `messages` (see {@link duplicateIdIssues}).
   */
  duplicateIssues(messages: readonly Pick<Message, "id" | "content">[]): ValidationIssue[] {
    const waitingToolUseIds = this.openToolUses().unanswered;
    return duplicateIdIssues(messages, { messageIds: this.#ids, waitingToolUseIds });
  }

  /**
   * The tool calls waiting for results at the end of the conversation: those of the last
   * assistant message not answered by the user message of results after it (`results`, when
   * there is one and nothing else follows). Empty when no call waits.
   */
  openToolUses(): { unanswered: string[]; results: Message | undefined } {
    const last = this.#messages.at(-1);
    const call = last?.role === "assistant" ? last : this.#messages.at(-2);
    if (call?.role !== "assistant") return { unanswered: [], results: undefined };
    const results = call === last ? undefined : last;
    if (results !== undefined && !results.content.some((block) => block.type === "tool_result"))
      return { unanswered: [], results: undefined };
    const answered = new Set<string>();
    for (const block of results?.content ?? [])
      if (block.type === "tool_result") answered.add(block.toolUseId);
    const unanswered: string[] = [];
    for (const block of call.content)
      if (block.type === "tool_use" && !answered.has(block.id)) unanswered.push(block.id);
    return { unanswered, results };
  }

  /** The last message, if any. */
  get last(): Message | undefined {
    return this.#messages.at(-1);
  }

  /** Appends validated messages. */
  push(messages: readonly Message[]): void {
    this.#view = undefined;
    this.#shared = undefined;
    // Indexed loops: a for-of here kept its iterators, garbage on every message appended.
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      this.#messages.push(message);
      this.#ids.add(message.id);
      // A call's id used again (its earlier call answered): the earlier call's summary is not its.
      if (this.summaries.size > 0)
        for (const block of message.content)
          if (block.type === "tool_use") this.summaries.delete(block.id);
    }
    this.lastTurnNumber = maxUserTurnNumber(messages);
    this.meter.added(messages);
  }

  /** Puts `message` in place of the last message (results merged into the message of results). */
  replaceLast(message: Message): void {
    const last = this.#messages.at(-1);
    if (last === undefined) return;
    this.#view = undefined;
    this.#shared = undefined;
    // A view handed out covers the last message: it keeps the array it has.
    if (this.#sharedLength >= this.#messages.length) {
      this.#messages = this.#messages.slice();
      this.#sharedLength = 0;
    }
    this.#messages[this.#messages.length - 1] = message;
    this.meter.swapped(last, message);
  }

  /**
   * The messages a compaction that replaced `before` (the history at `generation`) by
   * `conversation` leaves now: what was appended meanwhile follows it, and as it follows the
   * change, the thinking the change made stale in it goes too (by `rules`).
   * Results merged meanwhile into the last message it had stay (in place of that message, when
   * the compaction left it as it was).
   * @throws {CompactionError} `aborted` when the history was replaced meanwhile, a message
   * appended meanwhile took an id of the compaction's output, results were merged into a message
   * the compaction changed, or tool calls appended meanwhile wait for their results (the edit
   * would make the thinking before them stale, and the request with their results refused).
   */
  landed(replacement: Replacement): Message[] {
    const { before, generation, rules } = replacement;
    const now = this.messages;
    if (generation !== this.#generation)
      throw new CompactionError("aborted", "the conversation was replaced while compacting");
    const conversation = withMergedResults(replacement.conversation, before, now);
    if (this.openToolUses().unanswered.length > 0)
      throw new CompactionError(
        "aborted",
        "tool calls appended while compacting wait for their results: the compaction lands at a maybeCompact after addToolResults",
      );
    const alone = now.length === before.length;
    const landed = alone ? conversation : [...conversation, ...now.slice(before.length)];
    // What was appended meanwhile was checked against the history then, not against the output.
    if (!alone && duplicateIdIssues(landed)[0])
      throw new CompactionError("aborted", "the conversation was replaced while compacting");
    return alone ? landed : repairThinking(rules, now, landed).conversation;
  }

  /**
   * Replaces every message (a compaction landed, a trim, a restored snapshot). What lands is
   * the session's: frozen, so no compactor or caller holding it can change it.
   */
  replace(messages: Message[]): void {
    const previous = this.#messages;
    // What stays in its place was frozen as it entered.
    freezeMessages(messages, previous);
    this.#messages = messages;
    this.#view = undefined;
    this.#shared = undefined;
    this.#sharedLength = 0;
    this.#generation += 1;
    // A replacement that changed messages in place (a masking pass) leaves the ids as they were,
    // and every tool result where it was.
    const sameIdsAsBefore = sameIds(previous, messages);
    if (!sameIdsAsBefore) {
      this.#ids = new Set();
      for (let index = 0; index < messages.length; index += 1) this.#ids.add(messages[index]!.id);
    }
    // Those in their place were counted as they entered.
    this.lastTurnNumber = maxUserTurnNumber(messages, previous);
    // Summaries of tool results that left the conversation are of no further use; summaries
    // stored ahead of their result (not yet appended) stay.
    if (this.summaries.size > 0 && !sameIdsAsBefore) {
      const kept = toolResultIds(messages);
      for (const toolUseId of toolResultIds(previous)) {
        if (!kept.has(toolUseId)) this.summaries.delete(toolUseId);
      }
    }
    this.meter.replaced(messages, previous);
  }

  /** Takes a validated snapshot's history in place of this one. @throws {ValidationError} for ids used twice. */
  restore(snapshot: ParsedSnapshot): void {
    const duplicates = duplicateIdIssues(snapshot.messages, {
      messageIds: new Set(),
      waitingToolUseIds: [],
    });
    if (duplicates.length > 0) {
      throw new ValidationError(
        "session snapshot",
        duplicates.map((issue) => ({ ...issue, path: ["messages", ...issue.path] })),
      );
    }
    rememberValid(snapshot.messages);
    this.summaries.clear();
    this.pinned.clear();
    this.replace(snapshot.messages);
    this.meter.restore(snapshot.meter, snapshot.messages);
    for (const [toolUseId, summary] of Object.entries(snapshot.compactSummaries))
      this.summaries.set(toolUseId, summary);
    this.lastTurnNumber = snapshot.lastTurnNumber;
    for (const id of snapshot.pinned ?? []) this.pinned.add(id);
  }

  /** Whether a message with this id is in the history. */
  has(messageId: string): boolean {
    return this.#ids.has(messageId);
  }

  /** The message with this id, if it is in the history. */
  byId(messageId: string): Message | undefined {
    if (!this.#ids.has(messageId)) return undefined;
    return this.#messages.findLast((message) => message.id === messageId);
  }

  /**
   * The compact summaries as {@link History.replace} would leave them for `messages`: those of
   * tool results that left the conversation go; those stored ahead of their result stay.
   */
  summariesAfter(messages: readonly Message[]): Map<string, string> {
    const kept = toolResultIds(messages);
    const summaries = new Map(this.summaries);
    for (const toolUseId of toolResultIds(this.#messages)) {
      if (!kept.has(toolUseId)) summaries.delete(toolUseId);
    }
    return summaries;
  }

  /** A copy of the messages as they are now (a compaction's input). */
  snapshot(): Message[] {
    return this.#messages.slice();
  }
}

function toolResultIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (let index = 0; index < messages.length; index += 1) {
    const { content } = messages[index]!;
    for (let at = 0; at < content.length; at += 1) {
      const block = content[at]!;
      if (block.type === "tool_result") ids.add(block.toolUseId);
    }
  }
  return ids;
}

/**
 * Whether `after` holds, place by place, messages with the ids, the `tool_use` ids and the
 * tool results (by tool use id) of `before`'s: the same objects, or versions of them that
 * changed other things.
 */
function sameIds(before: readonly Message[], after: readonly Message[]): boolean {
  if (before.length !== after.length) return false;
  for (let index = 0; index < before.length; index += 1) {
    const then = before[index]!;
    const now = after[index]!;
    if (then !== now && (then.id !== now.id || toolIds(then) !== toolIds(now))) return false;
  }
  return true;
}

/** A message's `tool_use` ids and tool results in order, as one text (each id length-prefixed). */
function toolIds({ content }: Message): string {
  let ids = "";
  for (let index = 0; index < content.length; index += 1) {
    const block = content[index]!;
    const id =
      block.type === "tool_use"
        ? block.id
        : block.type === "tool_result"
          ? block.toolUseId
          : undefined;
    if (id !== undefined) ids += `${block.type === "tool_use" ? "u" : "r"}${id.length}:${id}`;
  }
  return ids;
}

/** The highest user turn number of `messages`, those at the same place in `counted` left out. */
function maxUserTurnNumber(messages: readonly Message[], counted: readonly Message[] = []): number {
  let max = 0;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    if (message === counted[index]) continue;
    const { turnId } = message;
    if (turnId.owner === USER_TURN_OWNER && !isSummaryTurn(turnId) && turnId.number > max)
      max = turnId.number;
  }
  return max;
}
