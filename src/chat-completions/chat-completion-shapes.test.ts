import { describe, expect, it } from "vitest";
import { refusedPaths as issuesOf } from "../../test/support/refusals.js";
import { AgentSession } from "../index.js";
import { appendChatCompletion } from "./chat-completion.js";

function session(): AgentSession {
  const made = new AgentSession({ contextLimit: 100_000 });
  made.addUserText("fix it");
  return made;
}

const anthropicResponse = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude",
  content: [{ type: "text", text: "I fixed it." }],
  stop_reason: "end_turn",
  usage: { input_tokens: 500, output_tokens: 5 },
};
const responsesResponse = {
  id: "resp_1",
  object: "response",
  output: [
    {
      type: "message",
      id: "m",
      role: "assistant",
      content: [{ type: "output_text", text: "I fixed it.", annotations: [] }],
    },
  ],
  usage: { input_tokens: 500, output_tokens: 5 },
};

describe("appendChatCompletion: what is not a Chat Completions response", () => {
  it("refuses another API's response, or a wrong shape, naming the field and taking nothing", () => {
    const wrong: [unknown, string][] = [
      [anthropicResponse, "choices"],
      [responsesResponse, "choices"],
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
    for (const [completion, path] of wrong) {
      const target = session();
      const before = target.contextUsed;
      expect(issuesOf(() => appendChatCompletion(target, completion as never))).toEqual([path]);
      expect(target.messages).toHaveLength(1);
      expect(target.contextUsed).toBe(before);
    }
    expect(() => appendChatCompletion(session(), anthropicResponse as never)).toThrow(
      /chat completion.*choices.*must be an array of choices/s,
    );
  });

  it("takes choices: [] (a filtered prompt) as a reply that says nothing, recording its usage", () => {
    const target = session();
    const appended = appendChatCompletion(target, {
      choices: [],
      usage: { prompt_tokens: 40, completion_tokens: 0 },
    });
    expect(appended).toEqual({ message: undefined, usage: { inputTokens: 40, outputTokens: 0 } });
    expect(target.messages).toHaveLength(1);
    expect(target.contextUsed).toBe(40);
  });

  it("reads only the first choice", () => {
    const target = session();
    const { message } = appendChatCompletion(target, {
      choices: [{ message: { role: "assistant", content: "Done." } }, 5 as never],
    });
    expect(message?.content).toMatchObject([{ type: "text", text: "Done." }]);
  });
});
