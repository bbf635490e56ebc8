import type { Message } from "../core/message.js";
import { estimateEdited, estimateMessageTokens, estimateTokens } from "../core/message-memo.js";
import { allInputTokens, type Usage } from "../core/usage.js";

export { type Usage, UsageSchema } from "../core/usage.js";

/**
 * A reported usage far below the local estimate of the messages it covers is not trusted:
 * below this share of it, and more than {@link UNTRUSTED_USAGE_GAP} tokens under it. The
 * estimate (4 characters a token) is rarely above the real count, except for images (a flat
 * 1,600 tokens each) and the framing of tiny messages; a usage far below it is a gateway's or a
 * mock's 0, or cache reads left out, and trusting it would let a request over the window go
 * out untrimmed.
 */
export const UNTRUSTED_USAGE_SHARE = 0.5;

/** See {@link UNTRUSTED_USAGE_SHARE}: a gap this small cannot put a request over a window. */
export const UNTRUSTED_USAGE_GAP = 1_000;

/**
 * Whether a reported context of `sent` tokens is too far below `estimate`, the local estimate
 * of the messages it covers, to be trusted (see {@link UNTRUSTED_USAGE_SHARE}).
 */
export function isUntrustedUsage(sent: number, estimate: number): boolean {
  return sent < UNTRUSTED_USAGE_SHARE * estimate && estimate - sent > UNTRUSTED_USAGE_GAP;
}

/**
 * The least spread of the local estimate between two usages a {@link ContextMeter} learns its
 * ratio from: closer ones differ by a tool result or two, and their difference says more about
 * the provider's rounding than about the content.
 */
const MIN_SPREAD_TOKENS = 2_000;
/** The same, as a share of the larger estimate of the two. */
const MIN_SPREAD_SHARE = 0.2;
/** The highest ratio the meter takes (a hex dump, a list of UUIDs: 3 to 4 by o200k). */
export const MAX_TOKEN_RATIO = 6;

/** A usage the meter learned from: the estimate of what it covered, and the tokens it counted. */
export interface MeterCalibration {
  estimate: number;
  tokens: number;
}

/** The meter's state, as stored in a snapshot. */
export interface ContextMeterState {
  /** Tokens the last usage counted beyond the local estimate (system prompt, tools, estimate error). */
  correction: number;
  /** Whether the next assistant message is the reply the last usage's output tokens counted. */
  replyCounted: boolean;
  /**
   * What the provider counts for each token the local estimate counts of the messages, learned
   * from two usages far enough apart (see {@link ContextMeter}); the last usage since the last
   * compaction, to learn from with the next (`from`); the usage of the least estimate (`least`:
   * its count is mostly overhead, the floor of the overhead after a compaction). Absent: 1,
   * nothing learned.
   */
  ratio?: { value: number; from?: MeterCalibration; least?: MeterCalibration };
}

/**
 * Measures the context a session's next request takes, in O(1) per call: a running local
 * estimate of the messages, corrected by the last usage the model reported (input + cache
 * creation + cache read + output), so messages appended since the last response count too.
 *
 * The provider's count is modelled as `overhead + ratio × estimate`: the overhead is what the
 * request holds besides the messages (system prompt, tools), the ratio what it counts for each
 * token the local estimate (4 characters a token) counts (code and JSON 1.5 to 1.7 by o200k, CJK
 * text 2.5 and more). The ratio is learned from two usages between compactions whose estimates
 * lie far enough apart (from 1 to {@link MAX_TOKEN_RATIO}); until then it is 1, and everything
 * the usage counted beyond the estimate is taken for overhead. Messages appended since the last
 * usage count at the ratio; after a compaction, what the ratio said of the removed messages goes
 * with them, and the overhead stays, never below what the usage of the least estimate showed
 * beyond its messages (a ratio learned on denser content than the conversation's start would
 * otherwise take the system prompt for part of the messages).
 */
export class ContextMeter {
  /**
   * The window the measure is held to, in tokens: the session's configured or model's window,
   * lowered by a refusal that names a smaller one (`recordContextOverflow`). Every threshold,
   * the last resort and clamping measure by it. Not part of {@link ContextMeter.state}.
   */
  contextLimit = Number.NaN;
  #estimate = 0;
  /** What the provider counts besides `ratio × estimate` (may be below 0 until a replacement). */
  #overhead = 0;
  #ratio = 1;
  /** The last trusted usage since the last compaction, to learn the ratio from with the next one far enough from it. */
  #calibration: MeterCalibration | undefined;
  /** The trusted usage of the least estimate: mostly overhead. */
  #least: MeterCalibration | undefined;
  #replyCounted = false;

  /** The measure: the overhead and the estimate of the messages at the ratio. */
  get contextUsed(): number {
    return this.contextOf(this.#estimate);
  }

  /** The local estimate of the messages alone. */
  get estimate(): number {
    return this.#estimate;
  }

  /** What the provider counts for each estimated token of the messages (1 until learned). */
  get ratio(): number {
    return this.#ratio;
  }

  /** What the measure counts besides the messages (system prompt, tools), in the provider's tokens. */
  get overhead(): number {
    return Math.max(0, this.#overhead);
  }

  /** The context a request takes whose messages the local estimate puts at `estimate`. */
  contextOf(estimate: number): number {
    return Math.max(0, Math.ceil(this.#overhead + this.#ratio * estimate));
  }

  /**
   * The window and the overhead in the local estimate's tokens, what compactors and the last
   * resort plan with (they count messages by the estimate): both divided by the ratio, so the
   * measure's shares of the window stay as they are.
   */
  get planning(): { contextLimit: number; contextUsed: number; overhead: number } {
    const ratio = this.#ratio;
    return {
      contextLimit: this.contextLimit / ratio,
      contextUsed: this.contextUsed / ratio,
      overhead: this.overhead / ratio,
    };
  }

  /** Counts appended messages. */
  added(messages: readonly Message[]): void {
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      const tokens = estimateMessageTokens(message);
      this.#estimate += tokens;
      if (this.#replyCounted && message.role === "assistant")
        this.#overhead -= this.#ratio * tokens;
      this.#replyCounted = false;
    }
  }

  /** Counts a message that took the place of another (tool results merged into the last message). */
  swapped(before: Message, after: Message): void {
    this.#estimate += estimateMessageTokens(after) - estimateMessageTokens(before);
  }

  /**
   * Calibrates against a usage the model reported for the conversation `messages`. A usage far
   * below the local estimate of what was sent (see {@link UNTRUSTED_USAGE_SHARE}: a gateway or
   * a mock reporting 0, cache reads left out) is ignored: the measure keeps what it had.
   */
  recorded(usage: Usage, messages: readonly Message[]): void {
    const input = allInputTokens(usage);
    const output = usage.outputTokens ?? 0;
    const lastIsReply = messages.at(-1)?.role === "assistant";
    const sent = lastIsReply ? input + output : input;
    const estimate = this.#estimate;
    if (isUntrustedUsage(sent, estimate)) return;
    const now = { estimate, tokens: sent };
    this.#learn(now);
    if (this.#least === undefined || estimate <= this.#least.estimate) this.#least = now;
    // When the reply is already appended, input + output covers it; otherwise output stands in for it.
    this.#overhead = input + output - this.#ratio * estimate;
    this.#replyCounted = !lastIsReply && output > 0;
  }

  /**
   * The ratio fitted between the last usage learned from and `now`, when their estimates lie
   * far enough apart (else the earlier one stays, for a later usage to be far enough from it).
   */
  #learn(now: MeterCalibration): void {
    const before = this.#calibration;
    if (before !== undefined) {
      const spread = now.estimate - before.estimate;
      const needed = Math.max(
        MIN_SPREAD_TOKENS,
        MIN_SPREAD_SHARE * Math.max(now.estimate, before.estimate),
      );
      if (Math.abs(spread) < needed) return;
      const fitted = (now.tokens - before.tokens) / spread;
      this.#ratio = Number.isFinite(fitted) ? Math.min(MAX_TOKEN_RATIO, Math.max(1, fitted)) : 1;
    }
    this.#calibration = now;
  }

  /**
   * Calibrates against a provider's refusal of a request of `requestTokens` for the messages as
   * they are (the system prompt or tools it held, never reported before): the measure is at
   * least that from now on, as a usage would make it.
   */
  refused(requestTokens: number): void {
    if (requestTokens <= this.contextUsed) return;
    this.#overhead = requestTokens - this.#ratio * this.#estimate;
    this.#replyCounted = false;
  }

  /**
   * Re-bases after the history was replaced (`previous`: the messages the estimate counted, when
   * it counted them all). What the usage counted beyond the messages (system prompt, tools)
   * stays, at least what the usage of the least estimate showed; what the ratio said of the
   * removed messages goes with them, and so does an overestimate. The next ratio is learned from
   * usages after it (one across it would measure the removed messages).
   */
  replaced(messages: readonly Message[], previous?: readonly Message[]): void {
    // The estimate is the sum over `previous` exactly: a version of it is estimated where it changed.
    this.#estimate =
      previous === undefined
        ? estimateTokens(messages)
        : estimateEdited(previous, this.#estimate, messages);
    this.#overhead = this.#overheadAfterReplace;
    this.#calibration = undefined;
  }

  /** The overhead a replacement keeps: at least what the usage of the least estimate showed. */
  get #overheadAfterReplace(): number {
    const least = this.#least;
    const floor = least === undefined ? 0 : least.tokens - this.#ratio * least.estimate;
    return Math.max(0, this.#overhead, floor);
  }

  /** The state {@link ContextMeter.replaced} would leave for messages of `estimate` (a head written before it applies). */
  stateAfterReplace(estimate: number): ContextMeterState {
    const correction = this.#overheadAfterReplace + (this.#ratio - 1) * estimate;
    return this.#stateWith(correction, undefined);
  }

  /** The state to store in a snapshot. */
  get state(): ContextMeterState {
    return this.#stateWith(this.#overhead + (this.#ratio - 1) * this.#estimate, this.#calibration);
  }

  /**
   * The state with `correction` (whole: what any version reads) and `from`; the ratio once a
   * usage was trusted (the least one is then known).
   */
  #stateWith(correction: number, from: MeterCalibration | undefined): ContextMeterState {
    const state: ContextMeterState = {
      correction: Math.round(correction),
      replyCounted: this.#replyCounted,
    };
    const least = this.#least;
    if (least === undefined) return state;
    state.ratio = { value: this.#ratio, least: { ...least } };
    if (from !== undefined) state.ratio.from = { ...from };
    return state;
  }

  /**
   * Restores a snapshot's state for `messages`, its correction held to what a meter can reach
   * (see {@link restoredCorrection}): set {@link ContextMeter.contextLimit} first.
   */
  restore(state: ContextMeterState, messages: readonly Message[]): void {
    this.#estimate = estimateTokens(messages);
    const { ratio } = state;
    this.#ratio = ratio?.value ?? 1;
    this.#calibration = ratio?.from === undefined ? undefined : { ...ratio.from };
    this.#least = ratio?.least === undefined ? undefined : { ...ratio.least };
    const correction = restoredCorrection(
      state.correction,
      messages,
      this.#estimate,
      this.contextLimit + (this.#ratio - 1) * this.#estimate,
    );
    this.#overhead = correction - (this.#ratio - 1) * this.#estimate;
    this.#replyCounted = state.replyCounted;
  }
}

/**
 * A snapshot's correction held to `[-max(UNTRUSTED_USAGE_SHARE × estimate, UNTRUSTED_USAGE_GAP)
 * - reply, ceiling]`, for the restored messages' `estimate`, `reply` the largest estimate of
 * an assistant message. Below: the meter never trusts a usage that far under the estimate
 * ({@link isUntrustedUsage}), so no reported usage leaves it there, less the one reply a usage
 * recorded before it was appended counted already (review 55g #3); a lower one (an edited
 * snapshot's -1e300) would read 0 tokens however the conversation grew.
 * Above (`ceiling`: the window, plus what the meter's ratio counts of the messages beyond their
 * estimate): what the usage counted beyond the messages (system prompt, tools) fits in the
 * window; a larger one puts every request over it whatever compaction removes (1e300 emptied the
 * history and read 1e300 forever). Clamped, not refused: a snapshot of an older version, whose
 * estimate of the same messages differed a little, restores, with a measure at most a little
 * higher (an earlier compaction, never a request over the window).
 */
function restoredCorrection(
  correction: number,
  messages: readonly Message[],
  estimate: number,
  ceiling: number,
): number {
  let reply = 0;
  for (const message of messages)
    if (message.role === "assistant") reply = Math.max(reply, estimateMessageTokens(message));
  const lowest = -Math.max(UNTRUSTED_USAGE_SHARE * estimate, UNTRUSTED_USAGE_GAP) - reply;
  const highest = Number.isFinite(ceiling) ? ceiling : Number.MAX_SAFE_INTEGER;
  return Math.min(highest, Math.max(lowest, correction));
}
