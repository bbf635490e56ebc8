import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { seed } from "../../test/properties/invariants.js";
import { oneChanged, replacementArbitrary } from "../../test/support/mutation.js";
import type { ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { toAnthropicMessages } from "./request.js";
import { quickWireMessage } from "./wire-quick-check.js";
import { parseWireMessageBySchemas } from "./wire-schemas.js";

const PLAUSIBLE: readonly unknown[] = [
  "",
  "x",
  0,
  true,
  null,
  undefined,
  [],
  {},
  "system",
  "tool_result",
  "text",
  { type: "text", text: "t" },
  { type: "search_result", source: "s" },
  Object.create(null),
];

const replacements = replacementArbitrary(PLAUSIBLE);

describe("the quick check of an Anthropic message param agrees with the wire schemas", () => {
  it("answers only what the schemas accept, as they answer it; passes on the rest", () => {
    let quick = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        trajectoryArbitrary(),
        fc.nat(),
        replacements,
        (messages: Message[], pick, replacement) => {
          const params = toAnthropicMessages(messages) as unknown[];
          const changed = oneChanged(params, pick, replacement) as unknown[];
          for (const param of [...params, ...changed]) {
            const issues: ValidationIssue[] = [];
            const expected = parseWireMessageBySchemas(param, ["messages", 0], issues);
            const answer = quickWireMessage(param);
            if (expected === undefined) refused += 1;
            if (answer === undefined) continue;
            quick += 1;
            expect(expected).toEqual(answer);
            // A copy: nothing of the caller's objects is kept.
            if (answer.role !== "system" && typeof answer.content !== "string")
              for (const [index, block] of answer.content.entries())
                expect(block).not.toBe((param as { content: unknown[] }).content[index]);
          }
        },
      ),
      { seed: seed(20_261_211), numRuns: 300 },
    );
    expect(quick).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(20);
  });
});
