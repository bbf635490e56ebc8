import type { ModelMessage } from "ai";
import type { RecentHistories } from "../internal/recent-histories.js";
import { snapshotOf } from "../internal/same-value.js";
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
  const histories = historiesOf<MemoryHistory>(parsed.memory, "compactModelMessages");
  return histories.alone(messages, parsed.signal, () =>
    compactRemembered(messages, parsed, histories),
  );
}

/**
 * A conversation {@link compactModelMessages} compacted, as its `memory` holds it: its messages
 * copied (one the caller changes in place afterwards is not the same), and how many of them,
 * the last ones, are the last of what it sent, unchanged.
 */
interface MemoryHistory extends LoopHistory {
  readonly verbatim: number;
}

/** {@link compactModelMessages} with the options checked, the conversations `histories` holds. */
async function compactRemembered(
  messages: readonly ModelMessage[],
  parsed: CompactModelMessagesOptions,
  histories: RecentHistories<MemoryHistory> | undefined,
): Promise<CompactedModelMessages> {
  const found = histories?.match(messages);
  const known = found === undefined ? undefined : upTo(found.history, found.matched);
  const step = await compactStep(new StatelessCompaction(parsed), {
    messages,
    known,
    contextUsed: parsed.contextUsed,
    signal: parsed.signal,
  });
  if (histories !== undefined) {
    // Copies of the messages added since (those before copied then).
    const from = known?.input.length ?? 0;
    const added = step.history.input.slice(from).map(snapshotOf) as ModelMessage[];
    const history = { ...step.history, input: [...(known?.input ?? []), ...added] };
    // Continued to its end: in its place; up to a message changed since: beside it.
    histories.remember(known === found?.history ? known : undefined, {
      ...history,
      verbatim: verbatimCount(history),
    });
  }
  const { sent } = step;
  if (sent === undefined) return compactedMessages(messages as ModelMessage[], false, step);
  return compactedMessages(sent, true, step);
}

/**
 * `history` up to its `matched` first messages, the rest of them among its verbatim ones: those
 * after dropped from what it holds of them, unchanged, one of ours for each.
 */
function upTo(history: MemoryHistory, matched: number): MemoryHistory {
  const dropped = history.input.length - matched;
  if (dropped === 0) return history;
  const kept = history.ours.length - dropped;
  return {
    ...history,
    input: history.input.slice(0, matched),
    ours: history.ours.slice(0, kept),
    sources: history.sources.slice(0, kept),
    tokens: undefined,
    verbatim: history.verbatim - dropped,
  };
}

/**
 * How many of `history`'s messages, the last ones, went as they came at the end of what was
 * sent: each one of ours, unchanged (it has a source), named by its position (as a step names
 * what it converts); none when all went as they came.
 */
function verbatimCount(history: LoopHistory): number {
  const { input, ours, sources } = history;
  // Nothing compacted: a call that changed some of it has nothing to go on from.
  if (history.sent === undefined) return 0;
  let count = 0;
  while (count < ours.length && count < input.length) {
    const at = ours.length - 1 - count;
    if (sources[at] === undefined || ours[at]!.id !== String(input.length - 1 - count)) break;
    count += 1;
  }
  return count;
}
