import { holdsResultsOnly, isSystemMessage, tailCaller } from "./conversation-structure.js";
import { type LateResults, withResultsTold, withStrayResultsTold } from "./late-results.js";
import type { Message, ToolResultBlock } from "./message.js";
import { type Clock, createMessage } from "./message-factory.js";

/** The content of the error result that closes a tool call the conversation went on without. */
export const INTERRUPTED_NOTICE =
  "[Tool call interrupted: the conversation went on before its result was given]";

/** The error result ({@link INTERRUPTED_NOTICE}) that closes the call `toolUseId`. */
export function interruptedResult(toolUseId: string): ToolResultBlock {
  return { type: "tool_result", toolUseId, content: INTERRUPTED_NOTICE, isError: true };
}

/** Calls waiting for results: their ids, in order, and the assistant message that made them. */
export interface OpenCalls {
  caller: Message | undefined;
  ids: string[];
}

/**
 * The calls `messages` leave waiting at their end: those of the last assistant message that no
 * message of results after it answered (a run of messages holding results alone: one per result
 * in some formats, see {@link holdsResultsOnly}). None when a message of another kind came after
 * it.
 */
export function openCalls(messages: readonly Message[]): OpenCalls {
  const at = tailCaller(messages);
  const caller = messages[at];
  if (caller?.role !== "assistant") return { caller: undefined, ids: [] };
  const answered = resultIds(messages, at + 1);
  return { caller, ids: callIds(caller).filter((id) => !answered.has(id)) };
}

/**
 * `messages` with each tool call that the conversation went on without (a run stopped between
 * the model's calls and their results, then a new request) closed by an error result
 * ({@link interruptedResult}), as the session's `addUserText` closes them: no provider takes a
 * call left unanswered. The calls' results may come in a run of messages of results; at the
 * first message of another kind, the calls still waiting are closed there: in it, after the
 * results it leads with, when it is a user's message; in a message of their own before it, when
 * it is an assistant or system message.
 *
 * A call answered later, before the next assistant message (a harness's system message or the
 * user's words between the calls and a result), has its result moved up to that place instead,
 * in the calls' order, a message it leaves empty dropped: every provider takes that. Moved
 * results go in a message of their own, with the closings beside them (their fields, a tool
 * message's name or options, are not the user's). A call whose AI SDK tool approval is answered
 * later, before the next assistant message, is left waiting (the SDK runs it and adds its
 * result: the last message's approvals are all it reads). A call answered only after an
 * assistant message is closed as well, and its result told as text where it came
 * ({@link LateResults}: `"told"`), or, with `"kept"`, left as it is (the Responses API takes an
 * output anywhere after its call): moving the result would change what that message was made
 * over.
 * Calls still waiting at the end stay open (the open tail: a last message of results alone, or
 * the last message's calls). `before`: the messages before these (a history known already,
 * never changed), whose open calls the first may answer. The same array when nothing changed.
 */
export function closeInterruptedCalls(
  input: readonly Message[],
  clock: Clock,
  before: readonly Message[] = [],
  lateResults: LateResults = "told",
): readonly Message[] {
  // Results of no call are told first: a message of one (at the end, too) is no run of results,
  // so the calls it left waiting are closed before it.
  const messages = withStrayResultsTold(input, before);
  let out: Message[] | undefined;
  let { caller, ids: waiting } = openCalls(before);
  let callerAt = -1;
  let later: LaterExchanges | undefined;
  // The results moved up, and those told as text, by the position of the message they came in.
  const moved = new Map<number, Set<ToolResultBlock>>();
  const told = lateResults === "told" ? new Map<number, Set<ToolResultBlock>>() : undefined;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    let kept = withoutMoved(message, moved.get(index));
    if (kept === undefined) continue;
    kept = withResultsTold(kept, told?.get(index));
    if (waiting.length > 0) {
      const answered = resultIds([kept], 0);
      waiting = waiting.filter((id) => !answered.has(id));
      // A run of results goes on; the open tail is left open.
      if (holdsResultsOnly(kept)) {
        if (index === messages.length - 1) waiting = [];
      } else {
        later ??= new LaterExchanges(messages);
        const { results: closing, movedAny } = later.closing(waiting, index, callerAt, moved, told);
        waiting = [];
        if (closing.length > 0) {
          out ??= messages.slice(0, index);
          // Moved results keep a message of their own: their fields are not the user's.
          if (kept.role === "user" && !isSystemMessage(kept) && !movedAny)
            kept = withResults(kept, closing);
          else out.push(resultsMessage(caller!, closing, clock));
        }
      }
    }
    if (kept !== message) out ??= messages.slice(0, index);
    out?.push(kept);
    if (message.role === "assistant") {
      caller = message;
      callerAt = index;
      waiting = callIds(message);
    }
  }
  return out ?? messages;
}

/** The ids of an assistant message's tool calls, in order. */
function callIds(message: Message): string[] {
  const ids: string[] = [];
  for (const block of message.content) if (block.type === "tool_use") ids.push(block.id);
  return ids;
}

/** The ids the results of `messages` from `from` on answer. */
function resultIds(messages: readonly Message[], from: number): Set<string> {
  const ids = new Set<string>();
  for (let index = from; index < messages.length; index += 1)
    for (const block of messages[index]!.content)
      if (block.type === "tool_result") ids.add(block.toolUseId);
  return ids;
}

/**
 * Where each call id is called and answered in `messages`, and where the assistant messages
 * are, in order: one walk, then lookups.
 */
class LaterExchanges {
  readonly #calls = new Map<string, number[]>();
  readonly #results = new Map<string, number[]>();
  /** For each id, the first result of it in each message of {@link #results}, in step. */
  readonly #resultBlocks = new Map<string, ToolResultBlock[]>();
  readonly #replies: number[] = [];
  /** The AI SDK's tool approvals: for each call id its request's approval id; the responses. */
  readonly #approvalOf = new Map<string, string>();
  /** The approvals the last message gives (the SDK reads only the last message's). */
  readonly #approved = new Set<string>();
  readonly #last: number;

  constructor(messages: readonly Message[]) {
    this.#last = messages.length - 1;
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      if (message.role === "assistant") this.#replies.push(index);
      for (const block of message.content) {
        if (block.type === "opaque") this.#noteApproval(block.block, index === this.#last);
        else if (block.type === "tool_use") push(this.#calls, block.id, index);
        else if (block.type === "tool_result" && push(this.#results, block.toolUseId, index)) {
          const blocks = this.#resultBlocks.get(block.toolUseId);
          if (blocks === undefined) this.#resultBlocks.set(block.toolUseId, [block]);
          else blocks.push(block);
        }
      }
    }
  }

  /**
   * The results to give at `index` to the calls `waiting` (made at `callerAt`), in their order:
   * the result of one answered later before the next assistant message, taken from its message
   * (noted in `moved`); an error result for one never answered. For one answered after an
   * assistant message, none (the Responses API takes an output anywhere after its call), or,
   * with `told`, an error result too, its late result noted there to be told as text. A result
   * counts only before a later call takes the same id again (some servers number calls per
   * response: `call_0` in each). `movedAny`: whether any result was moved.
   */
  closing(
    waiting: readonly string[],
    index: number,
    callerAt: number,
    moved: Map<number, Set<ToolResultBlock>>,
    told: Map<number, Set<ToolResultBlock>> | undefined,
  ): { results: ToolResultBlock[]; movedAny: boolean } {
    const closing: ToolResultBlock[] = [];
    let movedAny = false;
    // The next assistant message: the one at `index` when it is one.
    const reply = firstAfter(this.#replies, index - 1);
    // A call id made twice (malformed, but sent) is answered once.
    for (const id of new Set(waiting)) {
      const answer = this.#answer(id, index, callerAt);
      if (answer === undefined) {
        // An approval given later (the AI SDK's): the SDK runs the call and adds its result.
        if (!this.#approvedLater(id, index, reply)) closing.push(interruptedResult(id));
      } else if (reply === undefined || answer.at < reply) {
        const { at, result } = answer;
        closing.push(result);
        movedAny = true;
        noteAt(moved, at, result);
      } else if (told !== undefined) {
        closing.push(interruptedResult(id));
        noteAt(told, answer.at, answer.result);
      }
    }
    return { results: closing, movedAny };
  }

  /** Notes a block carried whole that is an AI SDK tool approval request or response. */
  #noteApproval(block: Readonly<Record<string, unknown>>, inLast: boolean): void {
    const { type, approvalId, toolCallId } = block;
    if (typeof approvalId !== "string") return;
    if (type === "tool-approval-request" && typeof toolCallId === "string")
      this.#approvalOf.set(toolCallId, approvalId);
    else if (type === "tool-approval-response" && inLast) this.#approved.add(approvalId);
  }

  /**
   * Whether the last message, after `index` and before any reply (at `reply`), answers the
   * approval of the call `id`.
   */
  #approvedLater(id: string, index: number, reply: number | undefined): boolean {
    const approval = this.#approvalOf.get(id);
    if (approval === undefined || !this.#approved.has(approval)) return false;
    return index < this.#last && (reply === undefined || this.#last < reply);
  }

  /**
   * The first result of the call `id` (made at `callerAt`) after `index`, and where it is;
   * `undefined` when none comes before a later call takes the same id again.
   */
  #answer(
    id: string,
    index: number,
    callerAt: number,
  ): { at: number; result: ToolResultBlock } | undefined {
    const positions = this.#results.get(id);
    const found = firstIndexAfter(positions, index);
    if (found === undefined) return undefined;
    const at = positions![found]!;
    const again = firstAfter(this.#calls.get(id), callerAt);
    if (again !== undefined && at > again) return undefined;
    return { at, result: this.#resultBlocks.get(id)![found]! };
  }
}

/**
 * `message` without the `results` moved up from it: the message itself when none was,
 * `undefined` when they were all it held.
 */
function withoutMoved(
  message: Message,
  results: ReadonlySet<ToolResultBlock> | undefined,
): Message | undefined {
  if (results === undefined) return message;
  const content = message.content.filter((block) => !results.has(block as ToolResultBlock));
  return content.length === 0 ? undefined : { ...message, content };
}

/** Notes `result` among those of the message at `at`. */
function noteAt(map: Map<number, Set<ToolResultBlock>>, at: number, result: ToolResultBlock): void {
  const noted = map.get(at);
  if (noted === undefined) map.set(at, new Set([result]));
  else noted.add(result);
}

/** Adds `index` to `key`'s positions, unless it is the last already; whether it was added. */
function push(map: Map<string, number[]>, key: string, index: number): boolean {
  const list = map.get(key);
  if (list === undefined) map.set(key, [index]);
  else if (list.at(-1) !== index) list.push(index);
  else return false;
  return true;
}

/** The first of the ascending `positions` after `position` (a binary search). */
function firstAfter(
  positions: readonly number[] | undefined,
  position: number,
): number | undefined {
  const found = firstIndexAfter(positions, position);
  return found === undefined ? undefined : positions![found];
}

/** Where in the ascending `positions` the first after `position` is. */
function firstIndexAfter(
  positions: readonly number[] | undefined,
  position: number,
): number | undefined {
  if (positions === undefined) return undefined;
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! <= position) low = middle + 1;
    else high = middle;
  }
  return low < positions.length ? low : undefined;
}

/** `message` with the `closing` results after the results it leads with. */
function withResults(message: Message, closing: readonly ToolResultBlock[]): Message {
  const { content } = message;
  let at = 0;
  while (at < content.length && content[at]!.type === "tool_result") at += 1;
  return { ...message, content: [...content.slice(0, at), ...closing, ...content.slice(at)] };
}

/** A user message of the `closing` results, in the turn of the calls' message. */
function resultsMessage(caller: Message, closing: ToolResultBlock[], clock: Clock): Message {
  const { sessionId, turnId } = caller;
  return createMessage({ role: "user", sessionId, turnId, content: closing, clock });
}
