import { z } from "zod";

/**
 * How many items (messages) a schema checks with zod's runtime parser before it is compiled.
 * Compiling the message schemas takes some 20–80 ms once; the runtime parser takes about
 * 10 µs a message and the compiled check about 1.5 µs. Compiling when the items checked would
 * pass this bound keeps the total within twice the best of the two, whatever the workload: a
 * session's appends never pay it, a stateless server that checks whole conversations soon does.
 */
export const COMPILE_AFTER_ITEMS = 5000;

/** Whether a value is valid for a schema, by zod's compiled check once it pays (see {@link validity}). */
export type Validity = (value: unknown, items: number) => boolean;

/**
 * Checks values against `schema`: by zod's runtime parser at first, and by `z.compile`'s
 * generated check once `items` (the messages in a value, say) would take the count past
 * `compileAfter`. Only says valid or not: the caller parses again for the issues. Where code
 * cannot be generated (a CSP, a worker runtime), `z.compile` hands back the schema and the
 * runtime parser goes on answering.
 */
export function validity<T>(schema: z.ZodType<T>, compileAfter = COMPILE_AFTER_ITEMS): Validity {
  let checked = 0;
  let compiled: z.ZodType<T> | undefined;
  return (value, items) => {
    if (compiled === undefined) {
      checked += items;
      if (checked < compileAfter) return schema.validate(value);
      compiled = z.compile(schema);
    }
    return compiled.validate(value);
  };
}
