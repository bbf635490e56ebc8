import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { fromResponsesInput } from "../../src/openai/index.js";

/** An item whose `type` getter answers "message" the first `honest` times it is read, then `turned`. */
function itemWithTurningType(honest: number, turned: object) {
  let reads = 0;
  return {
    get type() {
      reads += 1;
      return reads <= honest ? "message" : turned;
    },
    role: "user",
    content: "hello",
  };
}

/** Whether `target` is reachable from `value` (by identity). */
function reaches(value: unknown, target: object, seen = new Set<unknown>()): boolean {
  if (value === target) return true;
  if (typeof value !== "object" || value === null || seen.has(value)) return false;
  seen.add(value);
  return Object.values(value).some((item) => reaches(item, target, seen));
}

// The quick reading of a message item checked `type` as a string, then read it again to build
// the item's kept fields: a getter could hand the blocks an object of the caller's, unchecked
// (shared with the caller, and written back as the item's `type`).
describe("the Responses quick reading of a message item with a getter", () => {
  for (const honest of [1, 2, 3]) {
    it(`shares nothing of the caller's (type honest for ${honest} reads)`, () => {
      const turned = { not: "a type" };
      let messages: unknown;
      try {
        messages = fromResponsesInput([itemWithTurningType(honest, turned)] as never);
      } catch (error) {
        // Read as no string at some point: refused, naming the field. Nothing shared either way.
        expect(ValidationError.isInstance(error)).toBe(true);
        expect((error as ValidationError).issues[0]?.path).toEqual([0, "type"]);
        return;
      }
      expect(reaches(messages, turned)).toBe(false);
    });
  }

  it("reads an item of plain fields as before", () => {
    const [message] = fromResponsesInput([{ type: "message", role: "user", content: "hello" }]);
    expect(message?.content).toEqual([
      {
        type: "text",
        text: "hello",
        extra: { openai: { item: { type: "message", role: "user" }, content: "string" } },
      },
    ]);
  });
});
