import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { MessageSchema, MessagesSchema } from "../../src/core/schemas.js";
import { LenientMessagesSchema } from "../../src/core/validate-conversation.js";
import { AgentSession, type Message } from "../../src/index.js";
import { LazilyCompiled } from "../../src/internal/compiled-schema.js";
import { SessionSnapshotSchema } from "../../src/session/snapshot.js";
import { LogRecordSchema } from "../../src/store/records.js";
import { trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { seed } from "../properties/invariants.js";
import { oneChanged, replacementArbitrary } from "../support/mutation.js";

/** Values some field accepts: a change to one may keep the conversation valid, or not. */
const PLAUSIBLE: readonly unknown[] = ["", "x", 0, 1, 2.5, true, false, null, [], {}, new Date(0)];

/** What replaces one value: junk, a plausible value, or nothing (the value deleted). */
const replacements = replacementArbitrary(PLAUSIBLE);

describe("the compiled message check agrees with zod's runtime parser", () => {
  it("the schemas compile (a recursive one would silently stay on the runtime parser)", () => {
    for (const schema of [
      MessageSchema,
      MessagesSchema,
      LenientMessagesSchema,
      SessionSnapshotSchema,
      LogRecordSchema,
    ])
      expect(() => z.compile(schema, { strict: true })).not.toThrow();
  });

  it("on conversations with one value replaced or deleted, a message repeated or moved", () => {
    const compiled = new LazilyCompiled(MessagesSchema, 0).for([]);
    const runtime = new LazilyCompiled(MessagesSchema, Number.POSITIVE_INFINITY).for([]);
    expect(compiled).not.toBe(MessagesSchema);
    expect(runtime).toBe(MessagesSchema);
    const lenient = new LazilyCompiled(LenientMessagesSchema, 0).for([]);
    let refused = 0;
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        fc.nat(),
        (messages: Message[], pick, replacement, other) => {
          const broken = [
            oneChanged(messages, pick, replacement),
            [...messages, messages[other % messages.length]],
            messages.map((message, index) =>
              index === other % messages.length ? messages[0] : message,
            ),
            messages,
          ];
          for (const value of broken) {
            const valid = z.validate(runtime, value);
            expect(valid).toBe(MessagesSchema.safeParse(value).success);
            expect(z.validate(compiled, value)).toBe(valid);
            expect(compiled.safeParse(value).success).toBe(valid);
            expect(z.validate(lenient, value)).toBe(LenientMessagesSchema.safeParse(value).success);
            if (!valid) refused += 1;
          }
        },
      ),
      { seed: seed(20_261_201), numRuns: 400 },
    );
    // The property saw both answers.
    expect(refused).toBeGreaterThan(400);
  });

  it("on session snapshots with one value replaced or deleted", () => {
    const compiled = new LazilyCompiled(SessionSnapshotSchema, 0).for([]);
    let refused = 0;
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        (messages: Message[], pick, replacement) => {
          const session = new AgentSession({
            contextLimit: 100_000,
            sessionId: messages[0]!.sessionId,
          });
          session.append(...messages);
          const snapshot: unknown = JSON.parse(JSON.stringify(session.toJSON()));
          const broken = oneChanged(snapshot, pick, replacement);
          const valid = SessionSnapshotSchema.safeParse(broken).success;
          expect(compiled.safeParse(broken).success).toBe(valid);
          expect(z.validate(compiled, broken)).toBe(valid);
          if (!valid) refused += 1;
        },
      ),
      { seed: seed(20_261_202), numRuns: 200 },
    );
    expect(refused).toBeGreaterThan(50);
  });
});
