import * as z from "zod/mini";
import { isPlainObject } from "./plain-object.js";

/**
 * How many items (messages) a schema checks with zod's runtime parser before it is compiled.
 * Compiling a message schema takes some 20–80 ms, once; the runtime parser takes about 10 µs
 * a message, the compiled one under 2 µs. Compiling when the items checked would pass this
 * bound keeps the total within about twice the better of the two, whatever the workload: a
 * session's appends never pay it, a stateless server that checks whole conversations soon does.
 */
export const COMPILE_AFTER_ITEMS = 5000;

/**
 * A schema that zod compiles (`z.compile`) once it has been used on enough items for the
 * compiling to pay; until then its runtime parser answers. Both answer the same, with the same
 * issues (zod reparses a value the compiled check refuses). Where code cannot be generated (a
 * CSP, a worker runtime), `z.compile` hands back the schema and the runtime parser goes on.
 */
export class LazilyCompiled<T> {
  readonly #schema: z.ZodMiniType<T>;
  readonly #compileAfter: number;
  #used = 0;
  #compiled: z.ZodMiniType<T> | undefined;

  constructor(schema: z.ZodMiniType<T>, compileAfter = COMPILE_AFTER_ITEMS) {
    this.#schema = schema;
    this.#compileAfter = compileAfter;
  }

  /** The schema to parse or check `value` with; its messages ({@link messageCount}) count as used. */
  for(value: unknown): z.ZodMiniType<T> {
    if (this.#compiled !== undefined) return this.#compiled;
    this.#used += messageCount(value);
    if (this.#used < this.#compileAfter) return this.#schema;
    this.#compiled = z.compile(this.#schema);
    return this.#compiled;
  }
}

/** The messages in `value`: an array's length, or that of an object's `messages`; else 1. */
export function messageCount(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (isPlainObject(value) && Array.isArray(value["messages"])) return value["messages"].length;
  return 1;
}
