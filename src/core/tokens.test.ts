import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../anthropic/request.js";
import { ConversationBuilder } from "../testing/builders.js";
import { estimateTokens } from "./message-memo.js";

describe("the local estimate", () => {
  it("counts a small tool exchange's framing: at least 0.85x its JSON at 4 characters a token (review 55b #3)", () => {
    const builder = new ConversationBuilder().user("Check every file.");
    for (let call = 0; call < 140; call += 1) {
      const id = `toolu_01${call.toString(36).padStart(5, "0")}Xq9vLmZ3aB7wK`;
      builder.toolCall({ name: "bash", input: { cmd: `test -f f${call}` }, result: "ok", id });
    }
    const messages = builder.build();
    const sent = JSON.stringify(toAnthropicMessages(messages)).length / 4;
    expect(estimateTokens(messages) / sent).toBeGreaterThanOrEqual(0.85);
  });
});

describe("the local estimate of media sent inline", () => {
  // 400 kB of base64: some 12 s of 16 kHz speech, or a 10-page PDF (Gemini: 258 tokens a page).
  const data = "QUJD".repeat(100_000);
  const opaque = (block: Record<string, unknown>) =>
    new ConversationBuilder()
      .user("What is in this file?")
      .build()
      .map((message) => ({
        ...message,
        content: [...message.content, { type: "opaque" as const, block: block as never }],
      }));

  it("counts the bytes at 64 a token, not the base64 as text (a 400 kB file was 100k tokens)", () => {
    const text = estimateTokens(opaque({}));
    for (const block of [
      { inlineData: { mimeType: "application/pdf", data } },
      { inlineData: { mimeType: "video/mp4", data }, thoughtSignature: "S" },
    ]) {
      const media = estimateTokens(opaque(block)) - text;
      expect(media).toBeGreaterThanOrEqual((data.length * 3) / 4 / 64);
      expect(media).toBeLessThan((data.length * 3) / 4 / 64 + 20);
    }
  });

  it("counts a file part of another shape as its JSON, as before", () => {
    const file = { type: "file", file: { file_data: `data:application/pdf;base64,${data}` } };
    expect(estimateTokens(opaque(file))).toBeGreaterThan(data.length / 4);
  });
});
