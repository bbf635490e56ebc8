import type { CompactionHooks } from "../session/compaction-hooks.js";
import {
  ForceCompactOptionsSchema,
  type ForceCompactResult,
  MaybeCompactOptionsSchema,
  startCall,
} from "../session/compaction-report.js";
import { JoinedRun } from "../session/joined-run.js";
import { SerialQueue } from "../session/serial-queue.js";
import {
  type CompactionHost,
  compactAuto,
  compactManual,
  type StoredCompactionReport,
} from "./stored-compaction.js";

/**
 * A stored session's compactions on this worker, one at a time as in `AgentSession`: a
 * `maybeCompact` joins the one running, `afterCompact` hooks run once the compaction has
 * released the session and its lease (so a hook may start another), and a compaction started
 * from the session's own `beforeCompact` hook is refused with `busy` (it would wait for
 * itself); calls from elsewhere wait their turn.
 */
export class CompactionQueue {
  readonly #host: CompactionHost;
  readonly #hooks: CompactionHooks;
  readonly #queue = new SerialQueue();
  readonly #auto = new JoinedRun<StoredCompactionReport>();

  /** `hooks`: the session's, whose `scopedBefore` the host's session options hold. */
  constructor(host: CompactionHost, hooks: CompactionHooks) {
    this.#host = host;
    this.#hooks = hooks;
  }

  /** See `StoredSession.maybeCompact`. */
  maybeCompact(options: unknown): Promise<StoredCompactionReport> {
    return startCall(
      MaybeCompactOptionsSchema,
      options,
      "maybeCompact",
      this.#hooks.inHook,
      (parsed) => {
        if (this.#auto.pending !== undefined) return this.#auto.pending;
        const host = this.#host;
        const queued = this.#queue.enqueue(async () => {
          for (let attempt = 1; ; attempt += 1) {
            const report = await compactAuto(host, parsed);
            if (report.discarded !== "conflict" || attempt >= host.maxAttempts) return report;
          }
        });
        return this.#auto.start(queued, async (report) => {
          await this.#hooks.after(report.boundaries);
          return report;
        });
      },
    );
  }

  /** See `StoredSession.forceCompact`. */
  forceCompact(options: unknown): Promise<ForceCompactResult> {
    return startCall(
      ForceCompactOptionsSchema,
      options,
      "forceCompact",
      this.#hooks.inHook,
      async (parsed) => {
        const host = this.#host;
        const result = await this.#queue.enqueue(() => compactManual(host, parsed));
        await this.#hooks.after(result.boundaries);
        return result;
      },
    );
  }
}
