import { describe, expect, it } from "vitest";
import { estimateMessageTokens } from "../core/message-memo.js";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { ConversationBuilder, textBlock } from "../testing/builders.js";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "./prompt.js";
import {
  collectUserRequests,
  newestWithin,
  requestsForPrompt,
  summaryFramingTokens,
  summaryMessage,
} from "./summary-message.js";

const AT = new Date("2026-12-01T00:00:00Z");

describe("collectUserRequests", () => {
  it("takes the user's words, oldest first: an earlier summary's verbatim ones, then the messages'", () => {
    const [first] = new ConversationBuilder().user("x").build();
    const earlier = summaryMessage("old summary", ["never touch /etc"], {
      sessionId: "s",
      clock: () => AT,
    });
    const rest = new ConversationBuilder()
      .user("fix the build")
      .toolCall({ name: "make", result: "ok" })
      .assistant("fixed")
      .build();
    const withWords = { ...rest[2]!, content: [...rest[2]!.content, textBlock("and the tests")] };
    const requests = collectUserRequests([
      earlier,
      { ...first!, content: [textBlock("  ")] },
      rest[0]!,
      rest[1]!,
      withWords,
      rest[3]!,
    ]);
    expect(requests).toEqual(["never touch /etc", "fix the build", "and the tests"]);
  });

  it("keeps words said more than once once, where they were said last", () => {
    const builder = new ConversationBuilder();
    for (const text of ["a", "b", "a", "c", "b"]) builder.user(text).assistant("ok");
    expect(collectUserRequests(builder.build())).toEqual(["a", "c", "b"]);
  });

  it("keeps 20,000 distinct requests, in order", () => {
    const builder = new ConversationBuilder();
    for (let index = 0; index < 20_000; index += 1)
      builder.user(`request ${index}`).assistant("ok");
    const requests = collectUserRequests(builder.build());
    expect(requests).toHaveLength(20_000);
    expect(requests[0]).toBe("request 0");
    expect(requests.at(-1)).toBe("request 19999");
  });
});

describe("newestWithin", () => {
  it("keeps the newest texts whose characters fit the token budget, oldest first", () => {
    const texts = ["a".repeat(8), "b".repeat(4), "c".repeat(4)];
    expect(newestWithin(texts, 0)).toEqual([]);
    expect(newestWithin(texts, 8 / CHARS_PER_TOKEN)).toEqual([texts[1], texts[2]]);
    expect(newestWithin(texts, 16 / CHARS_PER_TOKEN)).toEqual(texts);
    // An older text that fits is not kept past a newer one that did not.
    expect(newestWithin(["short", "x".repeat(100)], 10)).toEqual([]);
  });

  it("gives the user's requests a quarter of the summarizer's request budget", () => {
    const requests = Array.from({ length: 10 }, (_, index) => `${index}`.repeat(CHARS_PER_TOKEN));
    expect(requestsForPrompt(requests, 12)).toEqual(requests.slice(-3));
  });
});

describe("summaryMessage", () => {
  it("is a user message of turn u0: the summary, then each verbatim user message in a block", () => {
    const message = summaryMessage("the gist", ["rule 1", "rule 2"], {
      sessionId: "session-1",
      clock: () => AT,
    });
    expect(message).toMatchObject({
      role: "user",
      sessionId: "session-1",
      turnId: SUMMARY_TURN_ID,
      createdAt: AT,
      content: [
        { type: "text", text: `${SUMMARY_PREFIX}the gist` },
        { type: "text", text: `${EARLIER_USER_MESSAGE_PREFIX}rule 1` },
        { type: "text", text: `${EARLIER_USER_MESSAGE_PREFIX}rule 2` },
      ],
    });
  });

  it("its framing is the message with an empty summary, verbatim messages included", () => {
    const options = { sessionId: "s", clock: () => AT };
    expect(summaryFramingTokens([])).toBe(estimateMessageTokens(summaryMessage("", [], options)));
    expect(summaryFramingTokens(["rule 1"])).toBe(
      estimateMessageTokens(summaryMessage("", ["rule 1"], options)),
    );
    expect(summaryFramingTokens(["rule 1"])).toBeGreaterThan(summaryFramingTokens([]));
  });
});
