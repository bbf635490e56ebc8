import type { Message } from "../../src/core/message.js";
import { ConversationBuilder } from "../../src/testing/builders.js";

/**
 * The session suites' history: turns of one tool call each (2,000 characters of output, with
 * a compact summary) and an 800-character answer.
 */
export function history(turns: number): Message[] {
  const builder = new ConversationBuilder();
  for (let turn = 1; turn <= turns; turn += 1) {
    builder
      .user(`request ${turn}`)
      .toolCall({ name: "read", result: "r".repeat(2000), compactSummary: `summary ${turn}` })
      .assistant(`answer ${turn} ${"a".repeat(800)}`);
  }
  return builder.build();
}
