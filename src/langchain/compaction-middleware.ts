import { type BaseMessage, RemoveMessage } from "@langchain/core/messages";
import { type AgentMiddleware, createMiddleware } from "langchain";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import {
  BOOLEAN_SCHEMA,
  functionSchema,
  optionsSchema,
  POSITIVE_INT_SCHEMA,
} from "../core/option-schemas.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryArchive } from "../session/archive.js";
import type { AgentSessionOptions } from "../session/options.js";
import { withDistinctCallIds } from "./distinct-call-ids.js";
import { closeInterruptedCalls } from "./interrupted-calls.js";
import { threadRecallTool } from "./recall-tool.js";
import { DEFAULT_THREAD_ID, threadIdOf } from "./thread-id.js";
import { ThreadSession } from "./thread-session.js";

/** LangGraph's marker that removes every message before the ones after it (`REMOVE_ALL_MESSAGES`). */
const REMOVE_ALL_MESSAGES = "__remove_all__";

/** Options of {@link compactionMiddleware}: the session's, and how threads are kept. */
export interface CompactionMiddlewareOptions extends Omit<AgentSessionOptions, "sessionId"> {
  /**
   * Registers `recall_compacted`, the tool the model fetches back what compaction removed
   * with (placeholders and summaries name its handles). @default true (false with `archive: false`)
   */
  recallTool?: boolean;
  /**
   * Called with each thread's session when it is made (a thread's first model call, or its
   * messages edited behind the middleware's back): to trace it (`traceCompactions`), listen
   * to its events, read its cost. @default none
   */
  onSession?: (session: AgentSession, threadId: string) => void;
  /**
   * Threads whose sessions are kept, the least recently used dropped first: a dropped thread
   * gets a new session from its messages at its next model call. @default 1000
   */
  maxThreads?: number;
}

/** Defaults of {@link CompactionMiddlewareOptions}' own options. */
export const DEFAULT_COMPACTION_MIDDLEWARE_OPTIONS = Object.freeze({
  recallTool: true,
  maxThreads: 1000,
});

/** The middleware {@link compactionMiddleware} makes, and the sessions it keeps. */
export type CompactionMiddleware = AgentMiddleware<undefined, undefined, unknown> & {
  /** A thread's session (its `configurable.thread_id`; {@link DEFAULT_THREAD_ID} without one), if it has one. */
  sessionOf(threadId?: string): AgentSession | undefined;
};

/** Schema of {@link CompactionMiddlewareOptions}' own options (the session checks its own). */
const MiddlewareOptionsSchema = optionsSchema({
  recallTool: z.exactOptional(BOOLEAN_SCHEMA),
  onSession: z.exactOptional(functionSchema<CompactionMiddlewareOptions["onSession"]>()),
  maxThreads: z.exactOptional(POSITIVE_INT_SCHEMA),
});

/** The threads' sessions, least recently used first. */
class Threads {
  readonly #threads = new Map<string, ThreadSession>();
  readonly #options: CompactionMiddlewareOptions;
  readonly #sessionOptions: AgentSessionOptions;

  constructor(options: CompactionMiddlewareOptions) {
    this.#options = options;
    const { recallTool: _recall, onSession: _onSession, maxThreads: _max, ...session } = options;
    // One archive for every session of the middleware: a thread's new session (its messages
    // edited, or followed anew) recalls what an earlier one archived, under the same id.
    this.#sessionOptions = { ...session, archive: session.archive ?? new MemoryArchive() };
    // A session made now checks the options at once, not at the first model call.
    new AgentSession(session);
  }

  get(threadId: string): ThreadSession | undefined {
    const thread = this.#threads.get(threadId);
    if (thread !== undefined) {
      this.#threads.delete(threadId);
      this.#threads.set(threadId, thread);
    }
    return thread;
  }

  /** A new session for the thread (the thread id is its session id), replacing any before. */
  start(threadId: string): ThreadSession {
    const session = new AgentSession({ ...this.#sessionOptions, sessionId: threadId });
    const thread = new ThreadSession(session);
    this.#threads.delete(threadId);
    this.#threads.set(threadId, thread);
    const max = this.#options.maxThreads ?? DEFAULT_COMPACTION_MIDDLEWARE_OPTIONS.maxThreads;
    for (const oldest of this.#threads.keys()) {
      if (this.#threads.size <= max) break;
      this.#threads.delete(oldest);
    }
    this.#options.onSession?.(session, threadId);
    return thread;
  }
}

/**
 * The thread's session brought up to the state's messages: the new ones appended, or the
 * whole history taken over by a new session when the state no longer starts with what the
 * session saw (edited, or a thread this process has not followed).
 */
function caughtUp(
  threads: Threads,
  threadId: string,
  state: readonly BaseMessage[],
): ThreadSession {
  const known = threads.get(threadId);
  const fresh = known?.unseen(state);
  // Seen at once, before the compaction's wait: another run on the same thread meanwhile (no
  // `thread_id`: the default one) is not taken for this one's continuation.
  if (known !== undefined && fresh !== undefined) {
    known.append(fresh, true);
    known.saw(state);
    return known;
  }
  const thread = threads.start(threadId);
  thread.append(state, false);
  thread.pinLeadingSystem(state);
  thread.saw(state);
  return thread;
}

/**
 * Brings a thread's session up to the state's messages, compacts if due, and gives the
 * messages the state should hold now (`undefined`: it holds them already).
 */
async function compactThread(
  threads: Threads,
  threadId: string,
  state: readonly BaseMessage[],
  signal: AbortSignal | undefined,
): Promise<BaseMessage[] | undefined> {
  const closed = closeInterruptedCalls(state);
  const thread = caughtUp(threads, threadId, closed);
  const before = thread.session.messages;
  await thread.session.maybeCompact(signal === undefined ? {} : { signal });
  if (closed === state && !thread.dirty && thread.session.messages === before) {
    thread.saw(state);
    return undefined;
  }
  return thread.rebuild();
}

/**
 * A `createAgent` middleware that keeps the agent's context inside the model's window: before
 * each model call it brings the thread's {@link AgentSession} up to the agent's `messages`
 * (new messages converted, each reply's `usage_metadata` recorded: cache reads and writes
 * count), runs `maybeCompact`, and when the session changed the conversation replaces the
 * state's messages (`RemoveMessage(REMOVE_ALL_MESSAGES)`, then the compacted ones), as
 * LangChain's `summarizationMiddleware` does. Unlike it: old tool results are masked first
 * (a summarizer only when you give one, judged on what masking left), a compaction never
 * splits a tool call from its result and never leaves stale thinking, what it removes stays
 * recallable (the `recall_compacted` tool), a failed summary changes nothing, and with
 * `model` or `pricing` it counts dollars (`sessionOf(threadId).cost`). One session per thread
 * (`configurable.thread_id`), kept in the middleware; messages the compaction left unchanged
 * go back as the same objects, and between compactions the state is only appended to, so the
 * prompt cache stays warm. A call id an earlier, answered call had (a provider numbering each
 * reply's calls, `call_0` every time) goes to the model as `<id>_<n>` with its results, named
 * the same in every request; the state keeps the provider's ids.
 *
 * @example
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [compactionMiddleware({ contextLimit: 200_000 })],
 * });
 * @throws {ValidationError} when an option is invalid (at once); at a model call, when a
 * message is malformed or not JSON where it must be.
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions): CompactionMiddleware {
  parseOrThrow(MiddlewareOptionsSchema, options, "CompactionMiddlewareOptions");
  const threads = new Threads(options);
  const recall =
    (options.recallTool ?? DEFAULT_COMPACTION_MIDDLEWARE_OPTIONS.recallTool) &&
    options.archive !== false;
  const middleware = createMiddleware({
    name: "CompactionMiddleware",
    ...(recall ? { tools: [threadRecallTool((threadId) => threads.get(threadId)?.session)] } : {}),
    beforeModel: async (state, runtime) => {
      const threadId = threadIdOf(runtime.configurable);
      const messages = await compactThread(threads, threadId, state.messages, runtime.signal);
      if (messages === undefined) return undefined;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages] };
    },
    // A call id an earlier, answered call had (a provider numbering each reply's calls) goes as
    // `<id>_<n>` in the request alone: the state keeps the provider's ids, its tools answer them.
    wrapModelCall: (request, handler) => {
      const messages = withDistinctCallIds(request.messages);
      return messages === request.messages
        ? handler(request)
        : handler({ ...request, messages: messages as BaseMessage[] });
    },
    // The reply joins the session as it comes, its usage with it: every request is counted.
    afterModel: (state, runtime) => {
      caughtUp(threads, threadIdOf(runtime.configurable), state.messages).saw(state.messages);
      return undefined;
    },
  });
  return Object.assign(middleware, {
    sessionOf: (threadId: string = DEFAULT_THREAD_ID) => threads.get(threadId)?.session,
  }) as CompactionMiddleware;
}
