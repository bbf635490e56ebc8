import { describe, expect, it } from "vitest";
import { refusedPaths } from "../../test/support/refusals.js";
import { fromResponsesInput } from "./responses-input.js";

describe("a caller's field named as the adapters' marks", () => {
  it("is refused, named, rather than read as the Responses adapter's mark", () => {
    const item = { type: "web_search_call", id: "ws_1", status: "completed" };
    const marked = { ...item, "openai:continues": true };
    expect(refusedPaths(() => fromResponsesInput([marked] as never))).toEqual([
      "0.openai:continues",
    ]);
    const langchain = { ...item, "langchain:message": {} };
    expect(refusedPaths(() => fromResponsesInput([langchain] as never))).toEqual([
      "0.langchain:message",
    ]);
    // The item itself, and a field merely holding a colon, go through.
    expect(refusedPaths(() => fromResponsesInput([item] as never))).toEqual([]);
    const colon = { ...item, "x:y": 1 };
    expect(refusedPaths(() => fromResponsesInput([colon] as never))).toEqual([]);
  });
});
