import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_RESPONSE,
  askedSession,
  expectRefusedUntouched,
  RESPONSES_RESPONSE,
} from "../../test/support/wrong-responses.js";
import { appendChatCompletion } from "./chat-completion.js";

describe("appendChatCompletion: what is not a Chat Completions response", () => {
  it("refuses another API's response, or a wrong shape, naming the field and taking nothing", () => {
    const wrong: [unknown, string][] = [
      [ANTHROPIC_RESPONSE, "choices"],
      [RESPONSES_RESPONSE, "choices"],
      [{}, "choices"],
      [{ choices: 5 }, "choices"],
      [{ choices: "x", usage: { prompt_tokens: 9 } }, "choices"],
      [null, ""],
      ["completion", ""],
      [[], ""],
      [{ choices: [5] }, "choices.0"],
      [{ choices: [null] }, "choices.0"],
      [{ choices: [{ index: 0 }], usage: { prompt_tokens: 500 } }, "choices.0.message"],
      [{ choices: [{ message: "hi" }] }, "choices.0.message"],
      [{ choices: [{ message: [] }] }, "choices.0.message"],
      [{ choices: [{ message: { content: 5 } }] }, "choices.0.message.content"],
    ];
    expectRefusedUntouched(appendChatCompletion, wrong);
    expect(() => appendChatCompletion(askedSession(), ANTHROPIC_RESPONSE as never)).toThrow(
      /chat completion.*choices.*must be an array of choices/s,
    );
  });

  it("takes choices: [] (a filtered prompt) as a reply that says nothing, recording its usage", () => {
    const target = askedSession();
    const appended = appendChatCompletion(target, {
      choices: [],
      usage: { prompt_tokens: 40, completion_tokens: 0 },
    });
    expect(appended).toEqual({ message: undefined, usage: { inputTokens: 40, outputTokens: 0 } });
    expect(target.messages).toHaveLength(1);
    expect(target.contextUsed).toBe(40);
  });

  it("reads only the first choice", () => {
    const target = askedSession();
    const { message } = appendChatCompletion(target, {
      choices: [{ message: { role: "assistant", content: "Done." } }, 5 as never],
    });
    expect(message?.content).toMatchObject([{ type: "text", text: "Done." }]);
  });
});
