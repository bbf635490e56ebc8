import type { Message } from "../../src/core/message.js";
import { ConversationBuilder } from "../../src/testing/builders.js";

/** A tool call reading `path`, its result about 900 tokens. */
export const read = (path: string) => ({
  name: "read",
  input: { path },
  result: "x".repeat(3_600),
});

/**
 * A request, four reads of about 900 tokens each, a reply and a new request: due for a summary
 * in a 4,000-token window (the tracing and run-event tests' conversation).
 */
export function fourReads(sessionId: string): Message[] {
  return new ConversationBuilder({ sessionId })
    .user("Fix the build.")
    .toolCalls(["a.ts", "b.ts", "c.ts", "d.ts"].map(read))
    .assistant("I read the four files.")
    .user("Now run the tests.")
    .build();
}
