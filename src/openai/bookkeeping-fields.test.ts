import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { fromResponsesInput } from "./responses-input.js";

/** The paths of the issues `run` threw a ValidationError with. */
function refusedAt(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error.issues.map(({ path }) => path.join("."));
    throw error;
  }
  return [];
}

describe("a caller's field named as the adapters' marks", () => {
  it("is refused, named, rather than read as the Responses adapter's mark", () => {
    const item = { type: "web_search_call", id: "ws_1", status: "completed" };
    const marked = { ...item, "openai:continues": true };
    expect(refusedAt(() => fromResponsesInput([marked] as never))).toEqual(["0.openai:continues"]);
    const langchain = { ...item, "langchain:message": {} };
    expect(refusedAt(() => fromResponsesInput([langchain] as never))).toEqual([
      "0.langchain:message",
    ]);
    // The item itself, and a field merely holding a colon, go through.
    expect(refusedAt(() => fromResponsesInput([item] as never))).toEqual([]);
    const colon = { ...item, "x:y": 1 };
    expect(refusedAt(() => fromResponsesInput([colon] as never))).toEqual([]);
  });
});
