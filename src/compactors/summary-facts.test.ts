import { describe, expect, it } from "vitest";
import type { Message } from "../core/message.js";
import { ConversationBuilder } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { LLMCompactor } from "./llm-compactor.js";
import { EARLIER_USER_MESSAGE_PREFIX } from "./prompt.js";

function history(): Message[] {
  return new ConversationBuilder()
    .user("Fix the parser. Never edit generated/schema.ts by hand.")
    .toolCall({
      name: "read",
      input: { path: "src/parser/lexer.ts" },
      result: "token kinds ".repeat(300),
    })
    .toolCall({
      name: "grep",
      input: { pattern: "TOKEN_KIND" },
      result: "ticket PARSE-1234 ".repeat(100),
    })
    .assistant("The lexer drops TOKEN_KIND values.")
    .user("Now run the tests.")
    .toolCall({ name: "test", result: "ok ".repeat(200) })
    .assistant("All green.")
    .build();
}

describe("summaries checked for the facts they must keep", () => {
  it("adds what the summary missed as a bounded section, and says what it added", async () => {
    const compactor = new LLMCompactor(
      new MockLlmClient().reply("The user asked for a parser fix."),
      {
        keepRecentTurns: 1,
        keepUserMessagesTokens: 0,
      },
    );
    const { conversation, result } = await compactor.compactAsync(history(), new Map());
    const summary = conversation[0]!;
    const texts = summary.content.map((block) => (block.type === "text" ? block.text : ""));
    const section = texts.find((text) => text.startsWith("Facts kept from the folded part:"));
    expect(section).toBeDefined();
    expect(section).toContain("Never edit generated/schema.ts by hand");
    expect(section).toContain("src/parser/lexer.ts");
    expect(section).toContain("PARSE-1234");
    expect(result.factsAdded).toEqual(expect.arrayContaining(["path: src/parser/lexer.ts"]));
    expect(section!.length).toBeLessThanOrEqual(400 * 4);
  });

  it("adds nothing the summary already holds, and nothing with factsSectionTokens: 0", async () => {
    const complete =
      "Fix the parser. Never edit generated/schema.ts by hand. Read src/parser/lexer.ts; " +
      "TOKEN_KIND; ticket PARSE-1234.";
    const full = await new LLMCompactor(new MockLlmClient().reply(complete), {
      keepRecentTurns: 1,
      keepUserMessagesTokens: 0,
    }).compactAsync(history(), new Map());
    expect(full.result.factsAdded).toBeUndefined();
    const off = await new LLMCompactor(new MockLlmClient().reply("short"), {
      keepRecentTurns: 1,
      factsSectionTokens: 0,
    }).compactAsync(history(), new Map());
    expect(off.result.factsAdded).toBeUndefined();
  });

  it("keeps the user's words verbatim within 10% of the window by default", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 1; turn <= 30; turn += 1) {
      builder.user(`Rule ${turn}: ${"keep this constraint ".repeat(30)}`);
      builder.toolCall({ name: "read", result: "x".repeat(2000) });
      builder.assistant(`ok ${turn}`);
    }
    const conversation = builder.build();
    const small = await new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 }).compactAsync(
      conversation,
      new Map(),
      { contextLimit: 20_000, contextUsed: 19_000 },
    );
    const large = await new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 }).compactAsync(
      conversation,
      new Map(),
      { contextLimit: 200_000, contextUsed: 19_000 },
    );
    const verbatim = (messages: Message[]) =>
      messages[0]!.content.filter(
        (block) => block.type === "text" && block.text.startsWith(EARLIER_USER_MESSAGE_PREFIX),
      ).length;
    // ~160 tokens each: 10% of a 20k window keeps about a dozen, of a 200k window all 29 folded.
    expect(verbatim(small.conversation)).toBeLessThan(verbatim(large.conversation));
    expect(verbatim(large.conversation)).toBe(29);
  });
});
