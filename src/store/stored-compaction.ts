import type { Compactor } from "../core/compactor.js";
import { CompactionError } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import {
  type ForceCompactOptions,
  type ForceCompactResult,
  idleReport,
  type MaybeCompactOptions,
  type MaybeCompactReport,
} from "../session/compaction-report.js";
import type { CompactionEvent } from "../session/events.js";
import type { AgentSessionOptions } from "../session/options.js";
import type { SessionSnapshot } from "../session/snapshot.js";
import { Lease } from "./lease.js";
import { encodeHead } from "./records.js";
import type { SessionStore, StorePosition } from "./session-store.js";

/** What `StoredSession.maybeCompact` did. */
export interface StoredCompactionReport extends MaybeCompactReport {
  /**
   * Why a compaction was not applied: `conflict` another worker changed the head first (in
   * every attempt), so this one was discarded and nothing of it applied; `lease_held` another
   * worker holds the lease and is compacting, so this one's compactors did not run (the last
   * resort may still have trimmed); the other's result reaches this worker on its next read.
   */
  discarded?: "conflict" | "lease_held";
}

/** The history a compaction starts from: a snapshot and the store position it reflects. */
export interface CompactionBase {
  snapshot: SessionSnapshot;
  position: StorePosition;
  /** Its context measure. */
  contextUsed: number;
}

/** What the compaction procedures need of a stored session. */
export interface CompactionHost {
  readonly store: SessionStore;
  readonly sessionId: string;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly sessionOptions: Omit<AgentSessionOptions, "sessionId">;
  /** The session's compactors, to tell whether one is due. */
  readonly compactors: readonly Compactor[];
  /** Automatic summaries failed in a row, as this worker counts them. */
  failures: number;
  /** Reads the store and captures the history as it is. */
  capture(): Promise<CompactionBase>;
  /** Swaps the head for `data` if it is still at `position`, and reads the result; whether it applied. */
  apply(position: StorePosition, data: string): Promise<boolean>;
  /** The context measure of the history as this worker has it now. */
  contextUsed(): number;
  emit(event: CompactionEvent): void;
}

/**
 * The last resort trims above 95% of the window: a run is due from a little below, so the
 * estimate's error never hides it.
 */
const TRIM_DUE_SHARE = 0.9;

/** Whether a compactor, or the last resort, would act on `base`. */
function isDue(host: CompactionHost, base: CompactionBase): boolean {
  const { contextUsed } = base;
  const { contextLimit, trimOnOverflow } = host.sessionOptions;
  if (trimOnOverflow !== false && contextUsed > TRIM_DUE_SHARE * contextLimit) return true;
  return host.compactors.some((compactor) => compactor.shouldCompact(contextUsed, contextLimit));
}

const isThinking = (block: ContentBlock) =>
  block.type === "thinking" || block.type === "redacted_thinking";

/** The id of the compacted history's last message when it is a tool call whose thinking went. */
function strippedToolCall(
  before: Pick<Message, "id" | "role" | "content"> | undefined,
  after: Message | undefined,
) {
  if (before === undefined || after === undefined || before.id !== after.id) return undefined;
  if (after.role !== "assistant" || !after.content.some((block) => block.type === "tool_use"))
    return undefined;
  const lost = before.content.some(isThinking) && !after.content.some(isThinking);
  return lost ? after.id : undefined;
}

/** A session built from `base` that runs the compactors, its events held back until it applies. */
function fork(
  host: CompactionHost,
  base: CompactionBase,
  beforeCompact = host.sessionOptions.beforeCompact,
) {
  const events: CompactionEvent[] = [];
  const {
    afterCompact: _after,
    beforeCompact: _before,
    onEvent: _onEvent,
    ...rest
  } = host.sessionOptions;
  const session = AgentSession.fromJSON(
    { ...base.snapshot, consecutiveFailures: host.failures },
    {
      ...rest,
      onEvent: (event) => events.push(event),
      ...(beforeCompact === undefined ? {} : { beforeCompact }),
    },
  );
  return { session, events };
}

/** Swaps the head for what `session` computed from `base`; whether it applied. */
async function swap(host: CompactionHost, base: CompactionBase, session: AgentSession) {
  const snapshot = session.toJSON();
  const stripped = strippedToolCall(base.snapshot.messages.at(-1), session.messages.at(-1));
  const data = encodeHead({
    snapshot,
    ...(stripped === undefined ? {} : { strippedToolCall: stripped }),
  });
  return host.apply(base.position, data);
}

/**
 * One automatic compaction: computed from the history as read, under the lease (taken only
 * once a compactor is due, so no summary is paid for twice), and applied by the head's
 * compare-and-swap; another worker's newer head discards it (`discarded: "conflict"`).
 */
export async function compactAuto(
  host: CompactionHost,
  options: MaybeCompactOptions,
): Promise<StoredCompactionReport> {
  const base = await host.capture();
  if (!isDue(host, base)) return idleReport(host.contextUsed(), host.sessionOptions.contextLimit);
  const lease = new Lease(host.store, host.sessionId, host.workerId, host.leaseMs);
  let leaseHeld = false;
  let storeError: { error: unknown } | undefined;
  const userHook = host.sessionOptions.beforeCompact;
  const { session, events } = fork(host, base, async (context) => {
    try {
      if (!(await lease.acquire())) {
        leaseHeld = true;
        return { veto: true };
      }
    } catch (error) {
      storeError = { error };
      return { veto: true };
    }
    return userHook?.(context);
  });
  try {
    const report = await session.maybeCompact(options);
    if (storeError !== undefined) throw storeError.error;
    host.failures = session.toJSON().consecutiveFailures;
    const discarded = leaseHeld ? { discarded: "lease_held" as const } : {};
    if (!report.compacted) {
      for (const event of events) host.emit(event);
      return { ...report, ...discarded };
    }
    if (!(await swap(host, base, session))) {
      const { trimmed: _trimmed, ...rest } = report;
      return {
        ...rest,
        compacted: false,
        boundaries: [],
        contextUsedAfter: host.contextUsed(),
        discarded: "conflict",
      };
    }
    for (const event of events) host.emit(event);
    return { ...report, contextUsedAfter: host.contextUsed(), ...discarded };
  } finally {
    await lease.release();
  }
}

/**
 * One manual compaction, all or nothing: waits for the lease (at most `leaseMs`), computes
 * from the history as read, applies by the head's compare-and-swap, and computes again on the
 * new history when another worker changed it first (`maxAttempts` in all).
 */
export async function compactManual(
  host: CompactionHost,
  options: ForceCompactOptions,
): Promise<ForceCompactResult> {
  const lease = new Lease(host.store, host.sessionId, host.workerId, host.leaseMs);
  if (!(await lease.acquireWithin(host.leaseMs, options.signal))) {
    throw new CompactionError(
      "busy",
      `another worker held the compaction lease of session ${JSON.stringify(host.sessionId)} for ${host.leaseMs} ms`,
    );
  }
  try {
    for (let attempt = 1; ; attempt += 1) {
      const base = await host.capture();
      const { session, events } = fork(host, base);
      const result = await session.forceCompact(options);
      const changed =
        result.boundaries.length > 0 || events.some((event) => event.type === "context_trimmed");
      if (!changed) {
        for (const event of events) host.emit(event);
        return result;
      }
      if (await swap(host, base, session)) {
        for (const event of events) host.emit(event);
        return result;
      }
      if (attempt >= host.maxAttempts) {
        throw new CompactionError(
          "aborted",
          `session ${JSON.stringify(host.sessionId)} was compacted by another worker while this one compacted, ${attempt} times: nothing of this compaction was applied`,
        );
      }
    }
  } finally {
    await lease.release();
  }
}
