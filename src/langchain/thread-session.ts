import type { BaseMessage } from "@langchain/core/messages";
import { readableMessages } from "../core/conversation-structure.js";
import type { ContentBlock, Message, ToolResultBlock } from "../core/message.js";
import type { Usage } from "../core/usage.js";
import { freezeBuiltMessages } from "../internal/frozen.js";
import type { AgentSession } from "../session/agent-session.js";
import { handOver } from "../session/handed-over.js";
import { jsonEqual } from "./ai-blocks-in.js";
import { type ConversionSettings, convertLangChainMessages } from "./messages-in.js";
import { type LangChainSources, pushLangChain } from "./messages-out.js";
import { usageFromLangChain } from "./usage.js";

type Record_ = Record<string, unknown>;

/** The fields that tell two LangChain messages apart when they are not the same object. */
const COMPARED = ["type", "id", "content", "tool_calls", "tool_call_id", "status"] as const;

/** Whether two LangChain messages say the same (one restored from a checkpoint, say). */
function sameMessage(a: BaseMessage, b: BaseMessage): boolean {
  if (a === b) return true;
  const left = a as unknown as Record_;
  const right = b as unknown as Record_;
  return COMPARED.every((key) => jsonEqual(left[key], right[key]));
}

/** The LangChain messages one message of ours came from: `fresh` from `start` to before `end`. */
interface SourceRange {
  fresh: readonly BaseMessage[];
  start: number;
  end: number;
}

const isToolResult = (block: ContentBlock): boolean => block.type === "tool_result";

/**
 * Where `append` records usage: after each AI message whose `usage_metadata` reports some
 * (`everyUsage`), else after the last such only; `marks` their indices among `messages`,
 * `usages` what each reported.
 */
function usageMarks(
  fresh: readonly BaseMessage[],
  messages: readonly Message[],
  starts: readonly number[],
  everyUsage: boolean,
): { marks: number[]; usages: Usage[] } {
  const marks: number[] = [];
  const usages: Usage[] = [];
  const usageAt = (index: number): Usage | undefined =>
    messages[index]!.role === "assistant"
      ? usageFromLangChain((fresh[starts[index]!] as { usage_metadata?: never }).usage_metadata)
      : undefined;
  // Only the last: read from the end, up to the first found.
  const first = everyUsage ? 0 : messages.length - 1;
  for (let index = first; index >= 0 && index < messages.length; index += everyUsage ? 1 : -1) {
    const usage = usageAt(index);
    if (usage === undefined) continue;
    marks.push(index);
    usages.push(usage);
    if (!everyUsage) break;
  }
  return { marks, usages };
}

/** What one model call found: the state's messages to replace, when the session changed them. */
export interface ThreadSync {
  /** The messages the state should hold now; `undefined` when it holds them already. */
  replacement: BaseMessage[] | undefined;
}

/**
 * One agent thread's session and what ties it to the thread's `messages`: the state as last
 * seen, and for each message of the session the LangChain message it came from, so what
 * compaction leaves unchanged goes back as that very object.
 */
export class ThreadSession implements LangChainSources {
  readonly session: AgentSession;
  /** The state's messages as last seen (after our replacement, when we made one). */
  #seen: readonly BaseMessage[] = [];
  #unchanged = new WeakMap<Message, BaseMessage>();
  #results = new WeakMap<ToolResultBlock, BaseMessage>();
  #byId = new Map<string, BaseMessage>();
  /** By the id of a message of tool results, the tool message of each of its results, in order. */
  #byResults = new Map<string, BaseMessage[]>();
  /** The message {@link output} writes now, and how many of its results it wrote. */
  #writing: Message | undefined;
  #resultsWritten = 0;
  /** An object the state holds now for one we handed out (restored from a checkpoint). */
  #current = new Map<BaseMessage, BaseMessage>();
  #dirty = false;

  constructor(session: AgentSession) {
    this.session = session;
  }

  /**
   * The messages of `state` the session has not seen, or `undefined` when the state no longer
   * starts with what it saw (edited, or a thread this session never followed).
   */
  unseen(state: readonly BaseMessage[]): readonly BaseMessage[] | undefined {
    const seen = this.#seen;
    if (state.length < seen.length) return undefined;
    for (let index = 0; index < seen.length; index += 1) {
      const before = seen[index]!;
      const now = state[index]!;
      if (!sameMessage(before, now)) return undefined;
      if (before !== now) this.#current.set(before, now);
    }
    return state.slice(seen.length);
  }

  /**
   * Appends `fresh` (the state's new messages) to the session in as few batches as the usage
   * allows: an AI message's usage is recorded right after it, so the context measure counts
   * what came after the reply by estimate. `everyUsage`: each AI message's (every request
   * counts in `session.cost`); else only the last one's (a history taken over whole). When the
   * session holds one otherwise than it came (a text over `maxBlockShare` is clamped), the
   * state must be replaced ({@link ThreadSession.dirty}).
   */
  append(fresh: readonly BaseMessage[], everyUsage: boolean): void {
    const { session } = this;
    const { messages, starts } = convertLangChainMessages(fresh, this.#settings());
    // Every object in them was made by the conversion: frozen by their known shape, not walked.
    freezeBuiltMessages(messages);
    const { marks, usages } = usageMarks(fresh, messages, starts, everyUsage);
    let intact = true;
    let from = 0;
    for (let at = 0; at <= marks.length; at += 1) {
      const mark = marks[at] ?? messages.length - 1;
      if (mark < from) continue;
      const batch =
        from === 0 && mark === messages.length - 1 ? messages : messages.slice(from, mark + 1);
      // Built here from the state's messages (copied where not strings), held by no caller.
      handOver(batch);
      try {
        session.append(...batch);
      } finally {
        handOver(undefined);
      }
      const stored = readableMessages(session.messages);
      const base = stored.length - batch.length;
      for (let offset = 0; offset < batch.length; offset += 1) {
        const index = from + offset;
        const end = starts[index + 1] ?? fresh.length;
        const sources = { fresh, start: starts[index]!, end };
        if (!this.#remember(batch[offset]!, stored[base + offset]!, sources)) intact = false;
      }
      const usage = usages[at];
      if (usage !== undefined) session.recordUsage(usage);
      from = mark + 1;
    }
    if (!intact) this.#dirty = true;
  }

  /** Whether the session holds messages otherwise than the state does. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /** Where converted messages go: after the session's last turn, numbered past its highest. */
  #settings(): ConversionSettings {
    const { session } = this;
    const last = session.messages.at(-1);
    let firstTurnNumber = 1;
    for (const message of session.messages)
      firstTurnNumber = Math.max(firstTurnNumber, message.turnId.number + 1);
    return {
      sessionId: session.sessionId,
      firstTurnNumber,
      fieldsFromSources: true,
      ...(last === undefined ? {} : { after: last.turnId }),
    };
  }

  /**
   * Pins the system messages that open `state` (all the session holds): the agent's
   * instructions stay first and whole through every compaction.
   */
  pinLeadingSystem(state: readonly BaseMessage[]): void {
    const { session } = this;
    for (let index = 0; index < state.length && state[index]!.type === "system"; index += 1) {
      const message = session.messages[index];
      if (message !== undefined) session.pin(message.id);
    }
  }

  /** Ties a stored message to its sources; whether it is as converted. */
  #remember(converted: Message, stored: Message, sources: SourceRange): boolean {
    const { fresh, start, end } = sources;
    const { content } = stored;
    if (stored.role === "assistant" || !content.every(isToolResult)) {
      this.#byId.set(stored.id, fresh[start]!);
      const same = converted === stored || jsonEqual(converted.content, content);
      if (same) this.#unchanged.set(stored, fresh[start]!);
      return same;
    }
    let same = true;
    const sourcesOfResults: BaseMessage[] = [];
    this.#byResults.set(stored.id, sourcesOfResults);
    for (let index = 0; index < content.length; index += 1) {
      const block = content[index]!;
      const source = start + index < end ? fresh[start + index] : undefined;
      if (block.type !== "tool_result" || source === undefined) continue;
      // By place, not by call id: a provider numbering each reply's calls reuses the ids.
      sourcesOfResults[index] = source;
      if (converted === stored || jsonEqual(converted.content[index], block))
        this.#results.set(block, source);
      else same = false;
    }
    return same;
  }

  /**
   * The session's messages as LangChain messages, what it left unchanged as the objects the
   * state holds; remembers them as seen, and forgets sources of messages no longer there.
   */
  rebuild(): BaseMessage[] {
    const messages = readableMessages(this.session.messages);
    const out = this.output(messages);
    const ids = new Set<string>();
    for (let index = 0; index < messages.length; index += 1) ids.add(messages[index]!.id);
    for (const id of this.#byId.keys()) if (!ids.has(id)) this.#byId.delete(id);
    for (const id of this.#byResults.keys()) if (!ids.has(id)) this.#byResults.delete(id);
    this.#current.clear();
    this.#dirty = false;
    this.#seen = out;
    return out;
  }

  /**
   * The session's messages (`messages`, by default as they are now) as LangChain messages, what
   * it left unchanged as the objects the state holds, remembering nothing (see
   * {@link ThreadSession.rebuild}): for a thread seen once.
   */
  output(messages: readonly Message[] = readableMessages(this.session.messages)): BaseMessage[] {
    const out: BaseMessage[] = [];
    for (let index = 0; index < messages.length; index += 1) {
      this.#writing = messages[index];
      this.#resultsWritten = 0;
      pushLangChain(out, messages[index]!, this);
    }
    this.#writing = undefined;
    return out;
  }

  /** Remembers `state` as seen as it is (nothing to replace). */
  saw(state: readonly BaseMessage[]): void {
    this.#seen = state.slice();
  }

  #now(message: BaseMessage | undefined): BaseMessage | undefined {
    return message === undefined ? undefined : (this.#current.get(message) ?? message);
  }

  unchanged(message: Message): BaseMessage | undefined {
    return this.#now(this.#unchanged.get(message));
  }

  /** The tool message a result came from: by the block, else by its place in its message. */
  result(block: ToolResultBlock): { source: BaseMessage; unchanged: boolean } | undefined {
    const place = this.#resultsWritten++;
    const kept = this.#now(this.#results.get(block));
    if (kept !== undefined) return { source: kept, unchanged: true };
    const message = this.#writing;
    const found = message === undefined ? undefined : this.#byResults.get(message.id)?.[place];
    // Compaction edits results in place: the source is the one at the block's place, when it
    // answers the same call.
    const source = this.#now(found);
    const answers = (source as { tool_call_id?: unknown } | undefined)?.tool_call_id;
    return source === undefined || answers !== block.toolUseId
      ? undefined
      : { source, unchanged: false };
  }

  original(id: string): BaseMessage | undefined {
    return this.#now(this.#byId.get(id));
  }
}
