import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validity } from "../../src/core/compiled-schema.js";
import { MessageSchema, MessagesSchema, SerializedMessageSchema } from "../../src/core/schemas.js";
import type { Message } from "../../src/index.js";
import { trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { seed } from "../properties/invariants.js";
import { DELETE, junkArbitrary, mutate, paths } from "../support/mutation.js";

/** Values some field accepts: a change to one may keep the conversation valid, or not. */
const PLAUSIBLE: readonly unknown[] = ["", "x", 0, 1, 2.5, true, false, null, [], {}, new Date(0)];

describe("the compiled message check agrees with zod's runtime parser", () => {
  it("the message schemas compile (a recursive one would silently stay on the runtime parser)", () => {
    for (const schema of [MessageSchema, MessagesSchema, z.array(SerializedMessageSchema)])
      expect(() => z.compile(schema, { strict: true })).not.toThrow();
  });

  it("on conversations with one value replaced or deleted, a message repeated or moved", () => {
    const compiled = validity(MessagesSchema, 0);
    const runtime = validity(MessagesSchema, Number.POSITIVE_INFINITY);
    let refused = 0;
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        fc.oneof(junkArbitrary, fc.constant(DELETE), fc.constantFrom(...PLAUSIBLE)),
        fc.nat(),
        (messages: Message[], pick, replacement, other) => {
          const all = paths(messages);
          const broken = [
            mutate(messages, all[pick % all.length]!, replacement),
            [...messages, messages[other % messages.length]],
            messages.map((message, index) =>
              index === other % messages.length ? messages[0] : message,
            ),
            messages,
          ];
          for (const value of broken) {
            const valid = runtime(value, 1);
            expect(valid).toBe(MessagesSchema.safeParse(value).success);
            expect(compiled(value, 1)).toBe(valid);
            if (!valid) refused += 1;
          }
        },
      ),
      { seed: seed(20_261_201), numRuns: 400 },
    );
    // The property saw both answers.
    expect(refused).toBeGreaterThan(400);
  });
});
