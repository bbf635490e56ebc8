import * as z from "zod/mini";
import { safeParse } from "../core/errors.js";
import { newId } from "../core/message-factory.js";
import {
  ISO_DATE_SCHEMA,
  NON_NEGATIVE_INT_SCHEMA,
  POSITIVE_INT_SCHEMA,
  STRING_SCHEMA,
} from "../core/option-schemas.js";
import type { SessionCore } from "../session/session-core.js";
import { storedDataError } from "./records.js";
import type { SessionStore } from "./session-store.js";

/** Keys of the session's key/value area that hold what every worker shares beyond the history. */
const CIRCUIT_KEY = "circuit";
const WINDOW_KEY = "window";

/**
 * The failures a stored breaker names, the latest: enough for a worker to tell its own, stored
 * once already by a write whose answer was lost, from other workers'.
 */
const MAX_FAILURE_IDS = 16;

const CircuitSchema = z.object({
  consecutiveFailures: NON_NEGATIVE_INT_SCHEMA,
  circuitOpenedAt: z.exactOptional(ISO_DATE_SCHEMA),
  // Absent in what an older version stored: its failures are counted, not named.
  failureIds: z.exactOptional(z.array(STRING_SCHEMA)),
});

/** The breaker as stored: the count, when it opened, and the failures it counts by id (the latest). */
interface Circuit {
  consecutiveFailures: number;
  circuitOpenedAt?: Date;
  failureIds: readonly string[];
}

/**
 * What this worker's runs did to the breaker that the store has not taken yet: when a summary
 * of its closed it, the failures it knew of then (`forgiven`); then the failures it counted
 * since, by id, and when the last was.
 */
interface Unstored {
  forgiven?: ReadonlySet<string>;
  failureIds: readonly string[];
  lastFailedAt?: Date;
}

const NOTHING_UNSTORED: Unstored = Object.freeze({ failureIds: Object.freeze([]) });

/**
 * The breaker as the store has it with what this worker did that it has not taken: this worker's
 * failures added (one the store names already, stored by a write whose answer was lost, counts
 * once); after a close of this worker's, only the failures it had not seen stay (another
 * worker's since), with its own. So another worker's write between this worker's failed write
 * and the next loses neither's failures, and a lost answer counts none twice.
 */
function mergeCircuit(stored: Circuit, unstored: Unstored): Circuit {
  if (unstored === NOTHING_UNSTORED) return stored;
  const { forgiven, failureIds: mine, lastFailedAt } = unstored;
  const others = stored.failureIds.filter((id) => !mine.includes(id) && forgiven?.has(id) !== true);
  const consecutiveFailures =
    forgiven === undefined
      ? stored.consecutiveFailures + mine.filter((id) => !stored.failureIds.includes(id)).length
      : others.length + mine.length;
  const storedOpenedAt =
    forgiven === undefined || others.length > 0 ? stored.circuitOpenedAt : undefined;
  // It opened at the last failure that found it at its limit: the later one of the two.
  const openedAt =
    storedOpenedAt === undefined || (lastFailedAt !== undefined && lastFailedAt > storedOpenedAt)
      ? lastFailedAt
      : storedOpenedAt;
  return {
    consecutiveFailures,
    ...(openedAt === undefined ? {} : { circuitOpenedAt: openedAt }),
    failureIds: [...others, ...mine].slice(-MAX_FAILURE_IDS),
  };
}

const WindowSchema = z.object({ contextLimit: POSITIVE_INT_SCHEMA });

/**
 * What a stored session's workers share beyond its log and head, each in a key of the session's
 * key/value area: the circuit breaker (summaries that failed in a row, when it opened), so a
 * fresh worker per request does not try a summarizer that is down once more each time; and a
 * window a provider's refusal named, so every worker compacts to it. The breaker is merged into
 * what the store has just before each write (see {@link mergeCircuit}; a run's write goes before
 * its lease, which keeps summaries one at a time), and what a failed write did not store stays
 * with its worker, in its breaker and for its next write. A window only goes down.
 */
export class SharedState {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #core: SessionCore;
  /** The breaker as the store had it when this worker last read or wrote it. */
  #stored: Circuit = { consecutiveFailures: 0, failureIds: [] };
  /** What this worker's runs did to the breaker that the store has not taken yet. */
  #unstored = NOTHING_UNSTORED;

  constructor(store: SessionStore, sessionId: string, core: SessionCore) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#core = core;
    core.runner.breaker.onChange = (failed) => this.#changed(failed);
  }

  /** Keeps what a run did to the breaker until the store takes it. */
  #changed(failed: boolean): void {
    const unstored = this.#unstored;
    if (failed) {
      this.#unstored = {
        ...unstored,
        failureIds: [...unstored.failureIds, newId()],
        lastFailedAt: this.#core.clock(),
      };
    } else if (unstored !== NOTHING_UNSTORED || this.#stored.consecutiveFailures > 0) {
      // Closed: the failures it knew of are forgiven; those it never saw are not.
      const known = [...(unstored.forgiven ?? []), ...this.#stored.failureIds];
      this.#unstored = { forgiven: new Set([...known, ...unstored.failureIds]), failureIds: [] };
    }
  }

  /**
   * Reads what other workers stored (their breaker, a smaller window they learned) and returns
   * the step that takes it: run it after the log is read (a head loaded from the log carries an
   * older breaker), while the reads go on beside the log's.
   */
  async read(): Promise<() => void> {
    const [circuit, window] = await Promise.all([
      this.#store.getValue(this.#sessionId, CIRCUIT_KEY),
      this.#store.getValue(this.#sessionId, WINDOW_KEY),
    ]);
    return () => this.#take(circuit, window);
  }

  #take(circuit: string | undefined, window: string | undefined): void {
    this.#takeCircuit(circuit);
    if (window !== undefined) {
      const { contextLimit } = this.#parse(WINDOW_KEY, WindowSchema, window);
      this.#core.recordContextOverflow({ windowTokens: contextLimit });
    }
  }

  /**
   * Takes the breaker the store has (none stored yet: the one this worker has) with what this
   * worker did that the store has not taken, and returns it.
   */
  #takeCircuit(data: string | undefined): Circuit {
    const { breaker } = this.#core.runner;
    if (data !== undefined) {
      const { failureIds = [], ...parsed } = this.#parse(CIRCUIT_KEY, CircuitSchema, data);
      this.#stored = { ...parsed, failureIds: failureIds.slice(-MAX_FAILURE_IDS) };
    } else if (this.#unstored === NOTHING_UNSTORED) {
      const { consecutiveFailures, circuitOpenedAt } = breaker.snapshot;
      this.#stored = {
        consecutiveFailures,
        ...(circuitOpenedAt === undefined ? {} : { circuitOpenedAt: new Date(circuitOpenedAt) }),
        failureIds: [],
      };
    }
    const circuit = mergeCircuit(this.#stored, this.#unstored);
    breaker.restore(circuit);
    return circuit;
  }

  /**
   * Stores what this worker's runs did to the breaker, if anything, merged into what the store
   * has now (read just before). A write that fails keeps it all with this worker, in its
   * breaker and for the next write.
   */
  async writeCircuit(): Promise<void> {
    const unstored = this.#unstored;
    if (unstored === NOTHING_UNSTORED) return;
    const circuit = this.#takeCircuit(await this.#store.getValue(this.#sessionId, CIRCUIT_KEY));
    // The breaker's own snapshot: when it opened only while it counts failures.
    const data = { ...this.#core.runner.breaker.snapshot, failureIds: circuit.failureIds };
    await this.#store.setValue(this.#sessionId, CIRCUIT_KEY, JSON.stringify(data));
    this.#stored = circuit;
    if (this.#unstored === unstored) this.#unstored = NOTHING_UNSTORED;
  }

  /** Stores the session's window (one a refusal named). */
  async writeWindow(): Promise<void> {
    const window = JSON.stringify({ contextLimit: this.#core.contextLimit });
    await this.#store.setValue(this.#sessionId, WINDOW_KEY, window);
  }

  /** @throws {ValidationError} naming the session and the key for bad stored data. */
  #parse<T>(key: string, schema: z.ZodMiniType<T>, data: string): T {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      throw storedDataError(this.#sessionId, [key], [{ path: [], message: "is not valid JSON" }]);
    }
    const parsed = safeParse(schema, value);
    if (parsed.success) return parsed.data;
    throw storedDataError(
      this.#sessionId,
      [key],
      parsed.error.issues.map((issue) => ({
        path: issue.path.map((part) => (typeof part === "symbol" ? String(part) : part)),
        message: issue.message,
      })),
    );
  }
}
