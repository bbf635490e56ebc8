import { z } from "zod";
import type { CompactorType } from "../compactors/create-compactor.js";
import type { AsyncCompactor, Compactor } from "../core/compactor.js";
import type { LlmClient } from "../core/llm-client.js";
import type { Clock } from "../core/message-factory.js";
import type { CompactionEvent, Logger } from "./events.js";
import type { AfterCompactHook, BeforeCompactHook } from "./hooks.js";

/** Options of {@link AgentSession}. */
export interface AgentSessionOptions {
  /** The model's context window in tokens. */
  contextLimit: number;
  /** @default a new uuid v7 */
  sessionId?: string;
  /**
   * The first compactor `maybeCompact` runs: a `Compactor`, a `CompactorType`, or `false`
   * for none. @default { type: "threshold" }
   */
  compactor?: Compactor | CompactorType | false;
  /** The second compactor, judged on the context left after the first. */
  llmCompactor?: AsyncCompactor;
  /** The client a `{ type: "llm" }` compactor uses. */
  llmClient?: LlmClient;
  /** Clock for message timestamps. @default the wall clock */
  clock?: Clock;
  /** Called with every compaction event. */
  onEvent?: (event: CompactionEvent) => void;
  /** Receives what cannot go through events (a listener that threw). @default silent */
  logger?: Logger;
  /** Automatic summaries pause after this many failures in a row. @default 3 */
  maxConsecutiveFailures?: number;
  /** Called before each compaction stage: may veto it or add instructions for the summariser. */
  beforeCompact?: BeforeCompactHook;
  /** Called with the boundary record after each compaction stage that changed the conversation. */
  afterCompact?: AfterCompactHook;
  /**
   * The last resort of `maybeCompact`: when the context is still above the window after every
   * compactor, remove the oldest messages (never splitting a tool exchange, keeping summaries
   * and the latest request) until it is at or below `targetUtilization` of the window. The
   * removed messages go out in a `context_trimmed` event. `true` means `{ targetUtilization: 0.5 }`.
   * @default false
   */
  trimOnOverflow?: boolean | { targetUtilization?: number };
}

const isFunction = (value: unknown) => typeof value === "function";
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** Schema of {@link AgentSessionOptions}. */
export const AgentSessionOptionsSchema = z.strictObject({
  contextLimit: z
    .number({ error: "must be a number" })
    .int("must be a whole number of tokens")
    .positive("must be greater than 0"),
  sessionId: z.string().min(1, "must be a non-empty string").exactOptional(),
  compactor: z
    .union(
      [
        z.literal(false),
        z.custom<Compactor>(
          (value) =>
            isObject(value) && isFunction(value.compact) && isFunction(value.shouldCompact),
        ),
        z.strictObject({
          type: z.enum(["threshold", "llm", "hybrid"]),
          config: z.record(z.string(), z.unknown()).exactOptional(),
        }),
      ],
      {
        error:
          'must be a Compactor, a CompactorType ({ type: "threshold" | "llm" | "hybrid" }) or false',
      },
    )
    .exactOptional(),
  llmCompactor: z
    .custom<AsyncCompactor>(
      (value) =>
        isObject(value) && isFunction(value.compactAsync) && isFunction(value.shouldCompact),
      "must be an AsyncCompactor (with compactAsync and shouldCompact)",
    )
    .exactOptional(),
  llmClient: z
    .custom<LlmClient>(
      (value) => isObject(value) && isFunction(value.complete),
      "must be an LlmClient",
    )
    .exactOptional(),
  clock: z.custom<Clock>(isFunction, "must be a function").exactOptional(),
  onEvent: z
    .custom<(event: CompactionEvent) => void>(isFunction, "must be a function")
    .exactOptional(),
  logger: z
    .custom<Logger>((value) => isObject(value) && isFunction(value.warn), "must have a warn method")
    .exactOptional(),
  beforeCompact: z.custom<BeforeCompactHook>(isFunction, "must be a function").exactOptional(),
  afterCompact: z.custom<AfterCompactHook>(isFunction, "must be a function").exactOptional(),
  maxConsecutiveFailures: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be greater than 0")
    .exactOptional(),
  trimOnOverflow: z
    .union(
      [
        z.boolean(),
        z.strictObject({
          targetUtilization: z
            .number({ error: "must be a number" })
            .refine((value) => value > 0 && value <= 1, "must be a number in (0, 1]")
            .exactOptional(),
        }),
      ],
      { error: "must be a boolean or { targetUtilization }" },
    )
    .exactOptional(),
});
