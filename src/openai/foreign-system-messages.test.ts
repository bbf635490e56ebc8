import { SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { aroundSystem } from "../../test/support/foreign-conversations.js";
import { responsesInputProblem } from "../../test/support/openai-responses-server.js";
import { fromModelMessages } from "../ai-sdk/model-messages.js";
import { fromChatMessages } from "../chat-completions/chat-messages-in.js";
import type { Message } from "../core/message.js";
import { fromLangChainMessages } from "../langchain/messages-in.js";
import { fromResponsesInput } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";

// A system message another adapter read (mid-conversation, carried whole) went to the Responses
// API as it was read: a Chat Completions `developer` message or a LangChain `SystemMessage` of
// `text` parts, which the API refuses ("Invalid value: 'text'"), and other APIs' own fields
// (review 59f, F2). The other writers were fixed in 585862b and 35df4e8.

const issued = () => ({ encrypted: new Map(), requiresReasoning: new Map() });

describe("another API's system message, sent to the Responses API", () => {
  const cases: [string, () => Message[], unknown][] = [
    [
      "a Chat Completions developer message of text parts",
      () =>
        fromChatMessages([{ role: "developer", content: [{ type: "text", text: "Be terse." }] }]),
      { role: "developer", content: "Be terse." },
    ],
    [
      "a LangChain SystemMessage of blocks",
      () =>
        fromLangChainMessages([
          new SystemMessage({ content: [{ type: "text", text: "Be terse." }] }),
        ]),
      { role: "system", content: "Be terse." },
    ],
    [
      "an AI SDK system message with its providerOptions",
      () =>
        fromModelMessages([
          {
            role: "system",
            content: "Be terse.",
            providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
          },
        ]),
      { role: "system", content: "Be terse." },
    ],
    [
      "a Responses developer item of input_text parts (as it came)",
      () =>
        fromResponsesInput([
          {
            type: "message",
            role: "developer",
            content: [{ type: "input_text", text: "Be terse." }],
          },
        ]),
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Be terse." }] },
    ],
  ];
  for (const [name, system, expected] of cases)
    it(`${name}: goes in the API's shape, and the API takes it`, () => {
      const input = toResponsesInput(aroundSystem(system()));
      expect(input[2]).toEqual(expected);
      expect(responsesInputProblem(input, issued())).toBeUndefined();
    });

  it("is left out when it has no text", () => {
    const input = toResponsesInput(
      aroundSystem(fromChatMessages([{ role: "developer", content: [] }])),
    );
    expect(input).toHaveLength(3);
  });
});
