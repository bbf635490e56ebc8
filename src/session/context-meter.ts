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

/** The meter's state, as stored in a snapshot. */
export interface ContextMeterState {
  /** Tokens the last usage counted beyond the local estimate (system prompt, tools, estimate error). */
  correction: number;
  /** Whether the next assistant message is the reply the last usage's output tokens counted. */
  replyCounted: boolean;
}

/**
 * Measures the context a session's next request takes, in O(1) per call: a running local
 * estimate of the messages, corrected by the last usage the model reported (input + cache
 * creation + cache read + output), so messages appended since the last response count too.
 */
export class ContextMeter {
  /**
   * The window the measure is held to, in tokens: the session's configured or model's window,
   * lowered by a refusal that names a smaller one (`recordContextOverflow`). Every threshold,
   * the last resort and clamping measure by it. Not part of {@link ContextMeter.state}.
   */
  contextLimit = Number.NaN;
  #estimate = 0;
  #correction = 0;
  #replyCounted = false;

  /** The measure: local estimate plus the correction from the last reported usage. */
  get contextUsed(): number {
    return Math.max(0, this.#estimate + this.#correction);
  }

  /** The local estimate of the messages alone. */
  get estimate(): number {
    return this.#estimate;
  }

  /** Counts appended messages. */
  added(messages: readonly Message[]): void {
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      const tokens = estimateMessageTokens(message);
      this.#estimate += tokens;
      if (this.#replyCounted && message.role === "assistant") this.#correction -= tokens;
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
    // When the reply is already appended, input + output covers it; otherwise output stands in for it.
    this.#correction = input + output - this.#estimate;
    this.#replyCounted = !lastIsReply && output > 0;
  }

  /**
   * Calibrates against a provider's refusal of a request of `requestTokens` for the messages as
   * they are (the system prompt or tools it held, never reported before): the measure is at
   * least that from now on, as a usage would make it.
   */
  refused(requestTokens: number): void {
    if (requestTokens <= this.contextUsed) return;
    this.#correction = requestTokens - this.#estimate;
    this.#replyCounted = false;
  }

  /**
   * Re-bases after the history was replaced (`previous`: the messages the estimate counted, when
   * it counted them all). What the usage counted beyond the messages
   * (system prompt, tools) stays; an overestimate sat in the messages and goes with them.
   */
  replaced(messages: readonly Message[], previous?: readonly Message[]): void {
    // The estimate is the sum over `previous` exactly: a version of it is estimated where it changed.
    this.#estimate =
      previous === undefined
        ? estimateTokens(messages)
        : estimateEdited(previous, this.#estimate, messages);
    this.#correction = Math.max(0, this.#correction);
  }

  /** The state {@link ContextMeter.replaced} would leave (a head written before it applies). */
  get stateAfterReplace(): ContextMeterState {
    return { correction: Math.max(0, this.#correction), replyCounted: this.#replyCounted };
  }

  /** The state to store in a snapshot. */
  get state(): ContextMeterState {
    return { correction: this.#correction, replyCounted: this.#replyCounted };
  }

  /**
   * Restores a snapshot's state for `messages`, its correction held to what a meter can reach
   * (see {@link restoredCorrection}): set {@link ContextMeter.contextLimit} first.
   */
  restore(state: ContextMeterState, messages: readonly Message[]): void {
    this.#estimate = estimateTokens(messages);
    this.#correction = restoredCorrection(
      state.correction,
      messages,
      this.#estimate,
      this.contextLimit,
    );
    this.#replyCounted = state.replyCounted;
  }
}

/**
 * A snapshot's correction held to `[-max(UNTRUSTED_USAGE_SHARE × estimate, UNTRUSTED_USAGE_GAP)
 * - reply, contextLimit]`, for the restored messages' `estimate`, `reply` the largest estimate of
 * an assistant message. Below: the meter never trusts a usage that far under the estimate
 * ({@link isUntrustedUsage}), so no reported usage leaves it there, less the one reply a usage
 * recorded before it was appended counted already (review 55g #3); a lower one (an edited
 * snapshot's -1e300) would read 0 tokens however the conversation grew.
 * Above: what the usage counted beyond the messages (system prompt, tools) fits in the window;
 * a larger one puts every request over it whatever compaction removes (1e300 emptied the
 * history and read 1e300 forever). Clamped, not refused: a snapshot of an older version, whose
 * estimate of the same messages differed a little, restores, with a measure at most a little
 * higher (an earlier compaction, never a request over the window).
 */
function restoredCorrection(
  correction: number,
  messages: readonly Message[],
  estimate: number,
  contextLimit: number,
): number {
  let reply = 0;
  for (const message of messages)
    if (message.role === "assistant") reply = Math.max(reply, estimateMessageTokens(message));
  const lowest = -Math.max(UNTRUSTED_USAGE_SHARE * estimate, UNTRUSTED_USAGE_GAP) - reply;
  const highest = Number.isFinite(contextLimit) ? contextLimit : Number.MAX_SAFE_INTEGER;
  return Math.min(highest, Math.max(lowest, correction));
}
