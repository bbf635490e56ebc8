import type { ModelMessage } from "ai";
import type { RecentHistories } from "../internal/recent-histories.js";
import { checkedCall, compactedMessages } from "../session/compact-messages.js";
import { historiesOf } from "../session/compaction-memory.js";
import { StatelessCompaction } from "../session/stateless-compaction.js";
import type { CompactedMessages, CompactMessagesOptions } from "../session/stateless-options.js";
import { compactStep, type LoopHistory } from "./compact-step.js";

/** Options of {@link compactModelMessages}: those of every one-call stateless helper. */
export type CompactModelMessagesOptions = CompactMessagesOptions;

/** What {@link compactModelMessages} returns. */
export type CompactedModelMessages = CompactedMessages<ModelMessage>;

/**
 * Compacts a whole AI SDK conversation in one call, as a stateless server does for each
 * request it gets (an HTTP handler, a `prepareStep` without memory): converts it, runs the
 * compactor if its threshold is crossed, and converts back, handing unchanged messages back as
 * the same objects. Resolves to the input array itself when nothing changed. A call whose id
 * an earlier, answered call had (a provider numbering each reply's calls, `call_0` every time)
 * goes with its results and its approval request as `<id>_<n>`, as `toModelMessages` sends it:
 * the providers behind the SDK refuse an id twice. With a `memory` (`CompactionMemory`),
 * messages that continue a conversation it compacted go on from what it sent, append-only.
 *
 * A failure of its compactor (a summarizer's outage) or of the archive does not reject: the
 * result's `error` holds it, and the last resort still fits the messages in the window (as in a
 * session's run: what ran before a failed compactor stands; nothing a compactor did stands
 * when the archive could not keep what it removed).
 *
 * @example
 * const { messages: compacted } = await compactModelMessages(messages, { contextLimit: 200_000 });
 * const result = await generateText({ model, messages: compacted });
 * @throws {ValidationError} for bad options or malformed messages; the caller's abort rejects
 * with an `aborted` `CompactionError`.
 */
export async function compactModelMessages(
  messages: readonly ModelMessage[],
  options: CompactModelMessagesOptions,
): Promise<CompactedModelMessages> {
  const parsed = checkedCall(messages, options, {
    entry: "compactModelMessages",
    what: "AI SDK messages",
  });
  if (parsed.memory === undefined) return compactRemembered(messages, parsed, undefined);
  const histories = historiesOf<LoopHistory>(parsed.memory, "compactModelMessages");
  return histories.alone(messages, parsed.signal, () =>
    compactRemembered(messages, parsed, histories),
  );
}

/** {@link compactModelMessages} with the options checked, the conversations `histories` holds. */
async function compactRemembered(
  messages: readonly ModelMessage[],
  parsed: CompactModelMessagesOptions,
  histories: RecentHistories<LoopHistory> | undefined,
): Promise<CompactedModelMessages> {
  const known = histories?.find(messages);
  const step = await compactStep(new StatelessCompaction(parsed), {
    messages,
    known,
    contextUsed: parsed.contextUsed,
    signal: parsed.signal,
  });
  histories?.remember(known, step.history);
  const { sent } = step;
  if (sent === undefined) return compactedMessages(messages as ModelMessage[], false, step);
  return compactedMessages(sent, true, step);
}
