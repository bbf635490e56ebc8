import type { BaseMessage } from "@langchain/core/messages";
import { readableMessages } from "../core/conversation-structure.js";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { contextTokens, usageIssues } from "../core/usage.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { compactMessagesOnce, type MessageFormat } from "../session/compact-messages.js";
import type { CompactedMessages, CompactMessagesOptions } from "../session/stateless-options.js";
import { CallSources } from "./call-sources.js";
import { closeInterruptedCalls } from "./interrupted-calls.js";
import { convertLangChainMessages } from "./messages-in.js";
import { pushLangChain } from "./messages-out.js";
import { markStaleUsage, staleReplies } from "./stale-usage.js";
import { usageFromLangChain } from "./usage.js";

/**
 * Options of {@link compactLangChainMessages}: every one-call helper's (`contextLimit`,
 * `compactor`, `llmCompactor`, `archive`, `contextUsed`, …). Without `contextUsed`, the last
 * reply's `usage_metadata` measures the context, unless that reply came before a compaction of
 * this helper that changed what was before it.
 */
export type CompactLangChainMessagesOptions = CompactMessagesOptions;

/** What {@link compactLangChainMessages} returns: every one-call helper's result. */
export type CompactedLangChainMessages = CompactedMessages<BaseMessage>;

/**
 * LangChain's messages as a one-call helper converts them, for one call: what compaction leaves
 * unchanged goes back as the very same objects (`origins`), and a changed message keeps its
 * original's own fields (an artifact, `additional_kwargs`) by reference ({@link CallSources}).
 * `caller`: the caller's messages, when those converted are them with interrupted calls closed.
 */
function langChainFormat(caller: readonly BaseMessage[]): MessageFormat<BaseMessage> {
  let input: readonly BaseMessage[] = [];
  let starts: readonly number[] = [];
  let sources: CallSources | undefined;
  return {
    entry: "compactLangChainMessages",
    what: "LangChain messages",
    // `ChatAnthropic` and `ChatOpenAI` send a call's id as the API's own, which refuses it twice.
    distinctToolIds: true,
    // Calls a later message went on without closed by error results without ids (see
    // compactLangChainMessages), on what goes: a `memory` compares the caller's own messages.
    prepare: (messages) => readingCaller(caller, () => closeInterruptedCalls(messages, false)),
    from: (messages, origins) => {
      const converted = convertedOf(messages, caller);
      input = messages;
      starts = converted.starts;
      const made = converted.messages;
      for (let index = 0; index < made.length; index += 1)
        origins.note(index, starts[index]!, starts[index + 1] ?? messages.length);
      sources = new CallSources(messages, made, starts);
      return made;
    },
    to: (messages, origins) => writeBack(messages, origins, sources!),
    // The last reply that reports its usage and came after the last compaction that changed a
    // message before it: its prompt and itself, and what came after it (as the intake took it:
    // a paste clamped counts clamped).
    reportedContext: (taken) => readingCaller(caller, () => reportedContext(taken)),
  };

  function reportedContext(taken: readonly Message[]): number | undefined {
    const stale = staleReplies(input);
    for (let index = taken.length - 1; index >= 0; index -= 1) {
      if (taken[index]!.role !== "assistant") continue;
      const at = starts[index];
      if (at !== undefined && stale[at] === true) continue;
      const reply = at === undefined ? undefined : (input[at] as { usage_metadata?: never });
      const usage = usageFromLangChain(reply?.usage_metadata);
      if (usage === undefined) continue;
      // Counts the session's `recordUsage` would refuse (1e20, past 2^53) are refused here too.
      if (usageIssues(usage).length > 0) {
        throw new ValidationError("LangChain messages", [
          { path: [at!, "usage_metadata"], message: "must count whole tokens below 2^53" },
        ]);
      }
      return contextTokens(usage) + estimateTokens(taken.slice(index + 1) as Message[]);
    }
    return undefined;
  }
}

/**
 * Our messages as LangChain's: those compaction left unchanged as the caller's (`origins`),
 * each other written anew from its source, and those written marked ({@link markStaleUsage}).
 */
function writeBack(
  messages: readonly Message[],
  origins: ItemOrigins<BaseMessage>,
  sources: CallSources,
): BaseMessage[] {
  const out: BaseMessage[] = [];
  // Where the messages written here stand (not the caller's: those put back, a result kept).
  const written: number[] = [];
  for (const message of readableMessages(messages)) {
    if (origins.put(message, out, out.length) !== -1) {
      sources.passing(message);
      continue;
    }
    sources.writing(message);
    const from = out.length;
    pushLangChain(out, message, sources);
    for (let at = from; at < out.length; at += 1) if (!sources.gaveBack(out[at]!)) written.push(at);
  }
  markStaleUsage(out, written);
  return out;
}

/**
 * `read()`, which reads the caller's `messages` again after their conversion: a getter or a
 * proxy's trap that throws there is bad input, named by the conversion (which reads every
 * field) where it throws again, else a `ValidationError` of the list with it as the cause.
 */
function readingCaller<T>(messages: readonly BaseMessage[], read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (ValidationError.isInstance(error)) throw error;
    convertLangChainMessages(messages, {});
    throw new ValidationError(
      "LangChain messages",
      [{ path: [], message: "could not be read (a getter or proxy threw)" }],
      { cause: error },
    );
  }
}

/**
 * `messages` converted; when refused and they are `caller`'s with interrupted calls closed, the
 * malformed message is named at its place in the caller's array: read again only then (a
 * history kept with its calls open is closed at every call).
 */
function convertedOf(messages: readonly BaseMessage[], caller: readonly BaseMessage[]) {
  try {
    return convertLangChainMessages(messages, { fieldsFromSources: true });
  } catch (error) {
    if (messages !== caller) convertLangChainMessages(caller, { fieldsFromSources: true });
    throw error;
  }
}

/**
 * Compacts a whole LangChain conversation in one call, for a loop of your own
 * (`model.invoke(messages)`, a LangGraph node), as every adapter's one-call helper does: the
 * messages converted, compacted with the session's promises (its default compactors, masking
 * first, tool calls never split, stale thinking removed, the last resort) and given back, those
 * it left unchanged as the same objects. Calls an interrupted run left waiting before a later
 * message are closed by error results (`INTERRUPTED_NOTICE`), as the middleware closes them.
 * The context is `contextUsed` when given, else the last reply's `usage_metadata` and an
 * estimate of what came after it, else the local estimate.
 *
 * A reply the output keeps keeps its `usage_metadata` (it is the caller's own object), which
 * counted the conversation before the compaction: compacting the output again (a node or hook
 * that runs twice, a retry) would measure that and compact again. So each message the
 * compaction wrote or rebuilt (a notice, a summary, a masked result) carries in
 * `additional_kwargs.agent_compaction_stale_usage` how many AI messages, from it on, the
 * compaction found already there, and their usage is not read: the last reply before every
 * such message (its prompt unchanged) or after them all (a reply the model gave since, the
 * real measure) is. The mark is on the messages themselves, so it holds in a LangGraph state
 * restored from a checkpoint (`toDict`, `toJSON`) as it does in memory, and no provider sends
 * it; the output compacted again at the same window is given back as it is.
 *
 * As every one-call helper, it archives what it removes only into an `archive` you give (the
 * caller holds the whole history); its handles are named after what their records hold (under
 * `sessionId` `"stateless"` unless one is given), so the same history compacted again is the
 * same request, byte for byte. Inside `createAgent`, {@link compactionMiddleware} keeps one
 * session per thread instead.
 *
 * A failure of its compactor (a summarizer's outage) or of the archive does not reject: the
 * result's `error` holds it, and the last resort still fits the messages in the window.
 *
 * @example
 * const { messages: compacted } = await compactLangChainMessages(messages, { contextLimit: 200_000 });
 * const reply = await model.invoke(compacted);
 * @throws {ValidationError} for bad options or a malformed message; the caller's abort rejects
 * with an `aborted` `CompactionError`.
 */
export async function compactLangChainMessages(
  messages: readonly BaseMessage[],
  options: CompactLangChainMessagesOptions,
): Promise<CompactedLangChainMessages> {
  // Calls a later message went on without (a run interrupted between a model's calls and their
  // results) are closed by error results, as the middleware closes them: no provider takes
  // them. Closed before the conversion (every other helper's intake closes them after it), as
  // tool messages of their own with the call's name and no id: messages the helper makes carry
  // none (the same request each time). The format closes them (`prepare`) on what goes.
  return compactMessagesOnce(messages, options, langChainFormat(messages));
}
