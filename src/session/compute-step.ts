import { requestWithin } from "../core/abort.js";
import {
  type CompactAsyncOptions,
  type CompactionOutput,
  type Compactor,
  isTrustedCompactor,
  runCompactor,
} from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { Message, ToolResultBlock } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { RECALL_MARK } from "../internal/recall-mark.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import type { CompactionTrigger } from "./events.js";
import type { History } from "./history.js";
import type { SessionLimits } from "./options.js";
import { asCompactionError, assertCompactorOutput, assertKeeps, strategyOf } from "./strategy.js";

/** What computing one compactor's step reads of its session (its meter holds the window). */
export interface StepSession {
  history: History;
  archive: ArchiveKeeper | undefined;
  limits: SessionLimits;
}

/**
 * Runs one compactor of the session's stages on `conversation` (see {@link runStep}), judged on
 * the session's overhead and its estimate. A summarizer gets the originals earlier compactions
 * archived.
 * @throws {CompactionError} the compactor's failure, a `timeout`, `aborted`, or `compactor_error`
 * (with the `ValidationError` as its cause) for output the session refuses.
 */
export async function computeStep(
  session: StepSession,
  compactor: Compactor,
  conversation: readonly Message[],
  trigger: CompactionTrigger,
  options: Pick<CompactAsyncOptions, "signal" | "instructions" | "runId">,
): Promise<CompactionOutput> {
  const { history, limits } = session;
  // What the measure counts beyond the messages (system prompt, tools) applies to any version of
  // them; the window and it in the estimate's tokens, which the compactor counts messages by.
  const { contextLimit, overhead } = history.meter.planning;
  const keeper = session.archive;
  const originals =
    keeper !== undefined && compactor.isAsync === true
      ? await originalsOf(keeper, conversation, limits.archiveTimeoutMs, options.signal)
      : undefined;
  const summaries = new Map(history.summaries);
  // The history as it is (its snapshot, unchanged since): the meter's estimate is the sum over it.
  const estimate =
    conversation === history.messages ? history.meter.estimate : estimateTokens(conversation);
  const compactOptions: CompactAsyncOptions = {
    ...options,
    contextLimit,
    contextUsed: overhead + estimate,
    trigger,
    ...(history.meter.ratio === 1 ? {} : { tokenRatio: history.meter.ratio }),
    ...(originals === undefined || originals.size === 0 ? {} : { originals }),
  };
  return runStep(
    compactor,
    conversation,
    summaries,
    compactOptions,
    limits.compactorTimeoutMs,
    estimate,
  );
}

/**
 * Runs one compactor as every path runs it (the session's, the stateless ones'): one of ours as
 * it is (it keeps its own time limits), one of the app's within `timeoutMs` and the caller's
 * signal, its output checked as the intake checks input. `estimate` and `source` reach ours
 * (see `TrustedCompaction`).
 * @throws {CompactionError} the compactor's failure, a `timeout`, `aborted`, or `compactor_error`
 * (with the `ValidationError` as its cause) for output the session refuses.
 */
export async function runStep(
  compactor: Compactor,
  conversation: readonly Message[],
  summaries: ReadonlyMap<string, string>,
  options: CompactAsyncOptions,
  timeoutMs: number,
  estimate?: number,
  source?: readonly Message[],
): Promise<CompactionOutput> {
  try {
    if (isTrustedCompactor(compactor))
      return await runCompactor(compactor, conversation, summaries, options, estimate, source);
    // A compactor of the app's: bounded in time, its signal fired when the time is up.
    const output: unknown = await requestWithin(
      (signal) => runCompactor(compactor, conversation, summaries, { ...options, signal }),
      {
        signal: options.signal,
        milliseconds: timeoutMs,
        what: `the ${strategyOf(compactor)} compactor`,
        failure: (error) => asCompactionError(error, compactor),
      },
    );
    // What it returns enters the session: validated here, once, as the intake checks input.
    assertCompactorOutput(output);
    assertKeeps(conversation, output.conversation);
    return output;
  } catch (error) {
    throw asCompactionError(error, compactor);
  }
}

/**
 * The archived originals of the placeholders in `conversation`, read within `milliseconds` and
 * `signal`; without a placeholder, the archive is not waited for at all.
 */
async function originalsOf(
  keeper: ArchiveKeeper,
  conversation: readonly Message[],
  milliseconds: number,
  signal: AbortSignal | undefined,
): Promise<Map<string, ToolResultBlock>> {
  if (!conversation.some(namesRecallHandle)) return new Map();
  return requestWithin(() => keeper.originals(conversation), {
    signal,
    milliseconds,
    what: "the archive's get",
    failure: (error) =>
      new CompactionError(
        "archive_error",
        `the archive's get failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      ),
  });
}

/** Whether a message holds a tool result whose text names a recall handle. */
function namesRecallHandle(message: Message): boolean {
  return message.content.some(
    (block) =>
      block.type === "tool_result" &&
      (typeof block.content === "string"
        ? block.content.includes(RECALL_MARK)
        : block.content.some((part) => part.type === "text" && part.text.includes(RECALL_MARK))),
  );
}
