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
