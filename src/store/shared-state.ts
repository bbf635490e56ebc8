import * as z from "zod/mini";
import { safeParse } from "../core/errors.js";
import {
  ISO_DATE_SCHEMA,
  NON_NEGATIVE_INT_SCHEMA,
  POSITIVE_INT_SCHEMA,
} from "../core/option-schemas.js";
import type { SessionCore } from "../session/session-core.js";
import { storedDataError } from "./records.js";
import type { SessionStore } from "./session-store.js";

/** Keys of the session's key/value area that hold what every worker shares beyond the history. */
const CIRCUIT_KEY = "circuit";
const WINDOW_KEY = "window";

const CircuitSchema = z.object({
  consecutiveFailures: NON_NEGATIVE_INT_SCHEMA,
  circuitOpenedAt: z.exactOptional(ISO_DATE_SCHEMA),
});

const WindowSchema = z.object({ contextLimit: POSITIVE_INT_SCHEMA });

/**
 * What a stored session's workers share beyond its log and head, each in a key of the session's
 * key/value area: the circuit breaker (summaries that failed in a row, when it opened), so a
 * fresh worker per request does not try a summarizer that is down once more each time; and a
 * window a provider's refusal named, so every worker compacts to it. Last writer wins: the
 * lease keeps one worker summarizing at a time, and a window only goes down.
 */
export class SharedState {
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #core: SessionCore;
  /** The breaker as this worker last read or wrote it (JSON). */
  #circuit = "";

  constructor(store: SessionStore, sessionId: string, core: SessionCore) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#core = core;
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
    if (circuit !== undefined) {
      this.#core.runner.breaker.restore(this.#parse(CIRCUIT_KEY, CircuitSchema, circuit));
    }
    this.#circuit = JSON.stringify(this.#core.runner.breaker.snapshot);
    if (window !== undefined) {
      const { contextLimit } = this.#parse(WINDOW_KEY, WindowSchema, window);
      this.#core.recordContextOverflow({ windowTokens: contextLimit });
    }
  }

  /** Stores the breaker when a run changed it. */
  async writeCircuit(): Promise<void> {
    const circuit = JSON.stringify(this.#core.runner.breaker.snapshot);
    if (circuit === this.#circuit) return;
    await this.#store.setValue(this.#sessionId, CIRCUIT_KEY, circuit);
    this.#circuit = circuit;
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
