import type { Content } from "@google/genai";
import { describe, expect, it } from "vitest";
import { AgentSession } from "../session/agent-session.js";
import { compactGeminiContents } from "./compact-contents.js";
import { fromGeminiContents } from "./contents-in.js";
import { toGeminiContents } from "./contents-out.js";

// A user's PDF or audio sent inline: Gemini counts it by page (258 tokens) or second (32), never
// as its base64 text. Counted at 4 characters a token, a 400 kB PDF (some 10 pages, 2,600
// tokens) was 100k tokens of a 128k window: the API's usage of 3k was not trusted, and the
// user's file was folded away at the second request (review 57c #1).

const DATA = "QUJD".repeat(100_000);
const ASK: Content = {
  role: "user",
  parts: [
    { text: "Summarize this report." },
    { inlineData: { mimeType: "application/pdf", data: DATA } },
  ],
};

describe("a user's file sent inline", () => {
  it("stays in a session's requests while the API's usage says they fit", async () => {
    const session = new AgentSession({ contextLimit: 128_000 });
    session.append(...fromGeminiContents([ASK]));
    for (let request = 1; request <= 4; request += 1) {
      await session.maybeCompact();
      expect(JSON.stringify(toGeminiContents(session.messages))).toContain(DATA);
      session.addAssistant([{ type: "text", text: `Answer ${request}: ${"w".repeat(2_000)}` }]);
      session.recordUsage({ inputTokens: 2_600 + 600 * request, outputTokens: 500 });
      session.addUserText(`Question ${request + 1}?`);
    }
  });

  it("stays in compactGeminiContents' output, audio too, with or without the API's usage", async () => {
    for (const mimeType of ["application/pdf", "audio/wav"]) {
      const contents: Content[] = [
        {
          role: "user",
          parts: [{ text: "What is this?" }, { inlineData: { mimeType, data: DATA } }],
        },
        { role: "model", parts: [{ text: "A report." }] },
        { role: "user", parts: [{ text: "Tell me more." }] },
      ];
      for (const contextUsed of [undefined, 2_800]) {
        const { messages } = await compactGeminiContents(contents, {
          contextLimit: 128_000,
          ...(contextUsed === undefined ? {} : { contextUsed }),
        });
        expect(messages).toBe(contents);
      }
    }
  });
});
