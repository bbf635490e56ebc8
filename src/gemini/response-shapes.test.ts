import { describe, expect, it } from "vitest";
import { refusedPaths as issuesOf } from "../../test/support/refusals.js";
import {
  ANTHROPIC_RESPONSE,
  askedSession,
  expectRefusedUntouched,
  RESPONSES_RESPONSE,
} from "../../test/support/wrong-responses.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession } from "../store/stored-session.js";
import { appendGeminiResponse } from "./response.js";

describe("appendGeminiResponse: what is not a generateContent response", () => {
  it("refuses another API's response, or a wrong shape, naming the field and taking nothing", () => {
    const wrong: [unknown, string][] = [
      [ANTHROPIC_RESPONSE, "candidates"],
      [RESPONSES_RESPONSE, "candidates"],
      [{}, "candidates"],
      [{ choices: 5 }, "candidates"],
      [{ candidates: "x" }, "candidates"],
      [{ candidates: {}, usageMetadata: { promptTokenCount: 3 } }, "candidates"],
      [null, ""],
      [[], ""],
      [{ candidates: [5] }, "candidates.0"],
      [{ candidates: [{ content: "text" }] }, "candidates.0.content"],
      [{ candidates: [{ content: { role: "model", parts: {} } }] }, "candidates.0.content.parts"],
      [
        { candidates: [{ content: { parts: [{ functionCall: { name: "f", args: 5 } }] } }] },
        "candidates.0.content.parts.0.functionCall.args",
      ],
      [{ candidates: [{ content: { parts: [7] } }] }, "candidates.0.content.parts.0"],
      [
        {
          candidates: [{ content: { parts: [{ text: "hi" }] } }],
          usageMetadata: { promptTokenCount: -1 },
        },
        "usageMetadata.promptTokenCount",
      ],
    ];
    expectRefusedUntouched(appendGeminiResponse, wrong);
    expect(() => appendGeminiResponse(askedSession(), ANTHROPIC_RESPONSE as never)).toThrow(
      /Gemini response.*candidates.*must be an array of candidates/s,
    );
  });

  it("takes a blocked prompt's response (no candidates, a promptFeedback) as appending nothing", () => {
    const target = askedSession();
    const appended = appendGeminiResponse(target, {
      promptFeedback: { blockReason: "SAFETY", safetyRatings: [] },
      usageMetadata: { promptTokenCount: 12 },
    } as never);
    expect(appended).toEqual({ message: undefined, usage: { inputTokens: 12 }, toolUses: [] });
    expect(target.messages).toHaveLength(1);
    expect(target.contextUsed).toBe(12);
    // Without usage, or with only usage (a stream's last chunk), or no candidate at all.
    for (const response of [
      { promptFeedback: { blockReason: "OTHER" } },
      { usageMetadata: { promptTokenCount: 12 } },
      { candidates: [] },
      { candidates: null, promptFeedback: { blockReason: "SAFETY" } },
      { candidates: [{ finishReason: "SAFETY" }] },
      { candidates: [{ content: null, finishReason: "RECITATION" }] },
    ]) {
      expect(appendGeminiResponse(target, response as never).message).toBeUndefined();
    }
    expect(target.messages).toHaveLength(1);
  });

  it("refuses a wrong shape before a StoredSession writes anything", async () => {
    const stored = await openSession(new MemoryStore(), "gemini-shapes", { contextLimit: 100_000 });
    await stored.addUserText("hi");
    expect(issuesOf(() => appendGeminiResponse(stored, ANTHROPIC_RESPONSE as never))).toEqual([
      "candidates",
    ]);
    expect(stored.messages).toHaveLength(1);
  });
});
