import type { BaseMessage } from "@langchain/core/messages";
import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import { ABORT_SIGNAL_SCHEMA, optionsSchema } from "../core/option-schemas.js";
import { type AgentSession, agentSessionWith } from "../session/agent-session.js";
import type { MaybeCompactReport } from "../session/compaction-report.js";
import { CONTENT_HANDLES } from "../session/content-handles.js";
import type { AgentSessionOptions } from "../session/options.js";
import { STATELESS_SESSION_ID } from "../session/stateless-options.js";
import { ThreadSession } from "./thread-session.js";

/**
 * Options of {@link compactLangChainMessages}: the session's, and a signal. Its `archive` is off
 * unless given, as every one-call helper's: the caller holds the whole history.
 */
export interface CompactLangChainMessagesOptions extends AgentSessionOptions {
  /** Cancels a summary in flight (reported as an `aborted` failure). @default none */
  signal?: AbortSignal;
}

const OPTIONS_SCHEMA = optionsSchema({ signal: z.exactOptional(ABORT_SIGNAL_SCHEMA) });

/** What {@link compactLangChainMessages} returns. */
export interface CompactedLangChainMessages {
  /** The messages to send: the input array itself when nothing changed. */
  messages: BaseMessage[];
  /** Whether the messages changed. */
  compacted: boolean;
  /** The session's report: each compactor's result, a failure, what was trimmed. */
  report: MaybeCompactReport;
  /** The session the call ran in: `cost`, `compactionUsage`, and with an `archive`, `recall(handle)`. */
  session: AgentSession;
}

/**
 * Compacts a whole LangChain conversation in one call, for a loop of your own
 * (`model.invoke(messages)`, a LangGraph node): a new `AgentSession` takes the messages (the
 * last reply's `usage_metadata` as the context measure), runs `maybeCompact` with the session's
 * promises (masking first, tool calls never split, stale thinking removed), and gives the
 * messages back, those it left unchanged as the same objects. As every one-call helper, it
 * archives what it removes only into an `archive` you give (the caller holds the whole
 * history; without one, placeholders name no handle). Its handles are named after what their
 * records hold (under `sessionId` `"stateless"` unless one is given), so the same history
 * compacted again is the same request, byte for byte, and a shared `archive` keeps each record
 * once: give it each call to recall what an earlier call removed; inside `createAgent`,
 * {@link compactionMiddleware} keeps one session per thread instead.
 *
 * @example
 * const { messages: compacted } = await compactLangChainMessages(messages, { contextLimit: 200_000 });
 * const reply = await model.invoke(compacted);
 * @throws {ValidationError} for bad options or a malformed message.
 */
export async function compactLangChainMessages(
  messages: readonly BaseMessage[],
  options: CompactLangChainMessagesOptions,
): Promise<CompactedLangChainMessages> {
  // The signal here; the session checks its own options.
  parseOrThrow(OPTIONS_SCHEMA, options, "compactLangChainMessages options");
  const { signal, ...sessionOptions } = options;
  // Made anew at each call: handles named after what they hold, under the stateless paths' id
  // unless one is given, so the same history compacted again is the same request, byte for
  // byte (the prompt cache reads it), and a shared archive keeps each record once. An option
  // set to `undefined` is absent, as the other helpers take it (not the session's default).
  const session = agentSessionWith(
    {
      ...sessionOptions,
      sessionId:
        sessionOptions.sessionId === undefined ? STATELESS_SESSION_ID : sessionOptions.sessionId,
      archive: sessionOptions.archive === undefined ? false : sessionOptions.archive,
    },
    { contentHandles: CONTENT_HANDLES },
  );
  const thread = new ThreadSession(session);
  thread.append(messages, false);
  thread.pinLeadingSystem(messages);
  const before = session.messages;
  const report = await session.maybeCompact(signal === undefined ? {} : { signal });
  if (!thread.dirty && session.messages === before) {
    return { messages: messages as BaseMessage[], compacted: false, report, session };
  }
  // The thread is not kept: nothing of it need be remembered for a next call.
  return { messages: thread.output(), compacted: true, report, session };
}
