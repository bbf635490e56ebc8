// Fields the Chat Completions API's schema refuses (the `openai` package's
// `ChatCompletionMessageParam`) are refused by every entry that reads chat messages, each naming
// its path, as the adapter's other checks do (review 54a, finding 4); what the schema allows still
// reads, and comes back as it came.
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { refusalIssues } from "../../test/support/refusals.js";
import { askedSession } from "../../test/support/wrong-responses.js";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import { appendChatCompletion } from "./chat-completion.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { toChatMessages } from "./chat-messages-out.js";
import { compactChatMessages } from "./compact-messages.js";
import { isQuickChatMessage } from "./messages-quick.js";

const USER = { role: "user", content: "hi" };
const call = (fields: Record<string, unknown>) => ({
  id: "c1",
  function: { name: "ls", arguments: "{}" },
  ...fields,
});
const answer = { role: "tool", tool_call_id: "c1", content: "x" };
const legacyCall = {
  role: "assistant",
  content: null,
  function_call: { name: "ls", arguments: "{}" },
};
const image = (imageUrl: unknown) => ({
  role: "user",
  content: [{ type: "image_url", image_url: imageUrl }],
});

/** Messages the API refuses, and the issue each is refused with. */
const MALFORMED: [string, unknown[], ValidationIssue][] = [
  [
    "a tool call of another type",
    [USER, { role: "assistant", content: null, tool_calls: [call({ type: "foo" })] }, answer],
    { path: [1, "tool_calls", 0, "type"], message: 'must be "function" or "custom"' },
  ],
  [
    "an image_url part whose image_url is a string",
    [image("https://x/y.png")],
    { path: [0, "content", 0, "image_url"], message: "must be an object with a string url" },
  ],
  [
    "an image_url part whose image_url is null",
    [image(null)],
    { path: [0, "content", 0, "image_url"], message: "must be an object with a string url" },
  ],
  [
    "an image_url part without a url",
    [image({})],
    { path: [0, "content", 0, "image_url", "url"], message: "must be a string" },
  ],
  [
    "an image_url part whose url is a number",
    [image({ url: 5, detail: "low" })],
    { path: [0, "content", 0, "image_url", "url"], message: "must be a string" },
  ],
  [
    "an image_url part in an assistant message",
    [USER, { role: "assistant", content: [{ type: "image_url", image_url: "x" }] }],
    { path: [1, "content", 0, "image_url"], message: "must be an object with a string url" },
  ],
  [
    "a system message of null content",
    [{ role: "system", content: null }, USER],
    { path: [0, "content"], message: "must be a string or an array of text parts" },
  ],
  [
    "a system message of a number",
    [{ role: "system", content: 7 }, USER],
    { path: [0, "content"], message: "must be a string or an array of text parts" },
  ],
  [
    "a system message of an image part",
    [{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x" } }] }, USER],
    { path: [0, "content", 0, "type"], message: 'must be "text"' },
  ],
  [
    "a system message of a part that is no object",
    [{ role: "system", content: ["be brief"] }, USER],
    { path: [0, "content", 0], message: "must be a text part (an object)" },
  ],
  [
    "a system message of a text part without text",
    [{ role: "system", content: [{ type: "text", text: 5 }] }, USER],
    { path: [0, "content", 0, "text"], message: "must be a string" },
  ],
  [
    "a developer message without content",
    [{ role: "developer" }, USER],
    { path: [0, "content"], message: "must be a string or an array of text parts" },
  ],
  [
    "a user message whose name is a number",
    [{ role: "user", content: "hi", name: 5 }],
    { path: [0, "name"], message: "must be a string" },
  ],
  [
    "a system message whose name is null",
    [{ role: "system", content: "be brief", name: null }, USER],
    { path: [0, "name"], message: "must be a string" },
  ],
  [
    "an assistant message whose name is an object",
    [USER, { role: "assistant", content: "ok", name: {} }],
    { path: [1, "name"], message: "must be a string" },
  ],
  [
    "an assistant message whose refusal is a number",
    [USER, { role: "assistant", content: "x", refusal: 5 }],
    { path: [1, "refusal"], message: "must be a string or null" },
  ],
  [
    "a function message without a name",
    [USER, legacyCall, { role: "function", content: "x" }],
    { path: [2, "name"], message: "must be a string" },
  ],
  [
    "a function message whose name is a number",
    [USER, legacyCall, { role: "function", name: 5, content: "x" }],
    { path: [2, "name"], message: "must be a string" },
  ],
  [
    "a function message of numeric content",
    [USER, legacyCall, { role: "function", name: "ls", content: 5 }],
    { path: [2, "content"], message: "must be a string or null" },
  ],
  [
    "a function message without content",
    [USER, legacyCall, { role: "function", name: "ls" }],
    { path: [2, "content"], message: "must be a string or null" },
  ],
];

function issuesOf(messages: unknown[]): ValidationIssue[] {
  return refusalIssues(() => fromChatMessages(messages));
}

describe("chat messages of fields the API refuses", () => {
  it.each(MALFORMED)("fromChatMessages refuses %s, naming the path", (_, messages, issue) => {
    expect(issuesOf(messages)).toEqual([issue]);
  });

  it.each(MALFORMED)(
    "compactChatMessages refuses %s, naming the path",
    async (_, messages, issue) => {
      const compacted = compactChatMessages(messages as ChatCompletionMessageParam[], {
        contextLimit: 100_000,
      });
      await expect(compacted).rejects.toBeInstanceOf(ValidationError);
      await expect(compacted).rejects.toMatchObject({ issues: [issue] });
    },
  );

  it("are never taken by the quick reading (it leaves them to the full one)", () => {
    for (const [, messages] of MALFORMED)
      for (const message of messages)
        if (message !== USER && message !== answer) expect(isQuickChatMessage(message)).toBe(false);
  });

  it("appendChatCompletion refuses a reply's tool call of another type, or a numeric refusal", () => {
    const replies: [unknown, (string | number)[]][] = [
      [
        { role: "assistant", content: null, tool_calls: [call({ type: "foo" })] },
        ["tool_calls", 0, "type"],
      ],
      [{ role: "assistant", content: "x", refusal: 5 }, ["refusal"]],
    ];
    for (const [message, path] of replies) {
      const target = askedSession();
      const issues = refusalIssues(() =>
        appendChatCompletion(target, { choices: [{ message }] } as never),
      );
      expect(issues.map((issue) => issue.path)).toEqual([["choices", 0, "message", ...path]]);
      expect(target.messages).toHaveLength(1);
    }
  });

  it("names every issue of a message", () => {
    expect(issuesOf([{ role: "function", name: 1, content: {} }])).toEqual([
      { path: [0, "name"], message: "must be a string" },
      { path: [0, "content"], message: "must be a string or null" },
    ]);
  });
});

describe("a tool call without a type (review 54d #2: Mistral, vLLM, Ollama send them)", () => {
  it.each([undefined, null, ""])(
    "type %j reads as a function call, written back as one",
    (type) => {
      const untyped = call(type === undefined ? {} : { type });
      const messages = [USER, { role: "assistant", content: null, tool_calls: [untyped] }, answer];
      const written = toChatMessages(fromChatMessages(messages));
      expect(written[1]).toMatchObject({
        tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
      });
      const session = askedSession();
      const reply = {
        choices: [{ message: { role: "assistant", content: null, tool_calls: [untyped] } }],
      };
      expect(appendChatCompletion(session, reply).message?.content[0]).toMatchObject({
        type: "tool_use",
        id: "c1",
        name: "ls",
      });
    },
  );
});

describe("chat messages the API's schema allows", () => {
  const VALID: [string, unknown[]][] = [
    [
      "function and custom tool calls",
      [
        USER,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            call({ type: "function" }),
            { id: "c2", type: "custom", custom: { name: "patch", input: "*** diff" } },
          ],
        },
        answer,
        { role: "tool", tool_call_id: "c2", content: "ok" },
      ],
    ],
    [
      "images by URL, by data, with a detail, and with an empty URL",
      [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "https://x/y.png", detail: "high" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
            { type: "image_url", image_url: { url: "" } },
          ],
        },
      ],
    ],
    [
      "system and developer messages of a string, of text parts, of none",
      [
        { role: "system", content: "be brief", name: "ops" },
        {
          role: "developer",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        { role: "developer", content: [] },
        USER,
      ],
    ],
    [
      "names, a refusal as a string and as null",
      [
        { role: "user", content: "hi", name: "ann" },
        { role: "assistant", content: "ok", name: "bot", refusal: null },
        { role: "user", content: "again" },
        { role: "assistant", content: null, refusal: "I can't help with that." },
      ],
    ],
    [
      "the legacy function role, of a string and of null",
      [
        USER,
        legacyCall,
        { role: "function", name: "ls", content: "a.ts" },
        legacyCall,
        { role: "function", name: "ls", content: null },
      ],
    ],
  ];

  it.each(VALID)("reads %s, giving them back as they came", (_, messages) => {
    expect(toChatMessages(fromChatMessages(messages))).toEqual(messages);
  });

  it.each(VALID)("compactChatMessages takes %s as they are", async (_, messages) => {
    const input = messages as ChatCompletionMessageParam[];
    const { messages: out } = await compactChatMessages(input, { contextLimit: 100_000 });
    expect(out).toBe(input);
  });
});
