import fc from "fast-check";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toChatMessages } from "../../src/chat-completions/index.js";
import {
  type ContentBlock,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  validateConversation,
} from "../../src/index.js";
import {
  ChatCompletionsServer,
  chatMessagesProblem,
  type ReasoningRule,
} from "./chat-completions-server.js";
import { refusedPaths } from "./refusals.js";

const state = (reasoning: ReasoningRule = "ignored", issued: [string, string][] = []) => ({
  reasoning,
  issuedReasoning: new Map(issued),
});
const problem = (messages: unknown[], reasoning?: ReasoningRule, issued?: [string, string][]) =>
  chatMessagesProblem(messages, state(reasoning, issued))?.message;

const system = { role: "system", content: "Be brief." };
const user = { role: "user", content: "go" };
const call = (id: string) => ({
  id,
  type: "function",
  function: { name: "read", arguments: "{}" },
});
const calls = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map(call),
});
const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });

describe("the loopback Chat Completions API's message rules", () => {
  it("accepts a tool loop with parallel calls, and a user message after the tool messages", () => {
    expect(problem([system, user, calls("a", "b"), tool("b"), tool("a"), user])).toBeUndefined();
    expect(problem([user, { role: "assistant", content: "done", refusal: null }])).toBeUndefined();
  });

  it("1-2: refuses no messages, unknown parts, and an assistant message with nothing", () => {
    expect(problem([])).toBe("[] is too short - 'messages'");
    const image = { type: "image_url", image_url: { url: "https://x/y.png" } };
    expect(problem([user, calls("a"), { ...tool("a"), content: [image] }])).toBe(
      "Invalid value: 'image_url'. Supported values are: 'text'.",
    );
    expect(
      problem([{ role: "user", content: [image, { type: "text", text: "see" }] }]),
    ).toBeUndefined();
    // An assistant message holds text and refusal parts only (the SDK's assistant param).
    expect(problem([user, { role: "assistant", content: [image] }])).toBe(
      "Invalid value: 'image_url'. Supported values are: 'text', 'refusal'.",
    );
    expect(problem([user, { role: "assistant", content: null }])).toBe(
      "Invalid value for 'content': expected a string, got null.",
    );
  });

  it("3: opens with the user's message after the system messages", () => {
    expect(problem([system, { role: "assistant", content: "hi" }, user])).toBe(
      "The first message after the system messages must be a user message.",
    );
  });

  it("4: answers only calls of the assistant message right before, once each", () => {
    expect(problem([user, tool("a")])).toBe(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
    expect(problem([user, calls("a"), tool("z")])).toBe(
      "Invalid parameter: 'tool_call_id' of 'z' not found in 'tool_calls' of previous message.",
    );
    expect(problem([user, calls("a", "b"), tool("a"), tool("a"), tool("b")])).toBe(
      "Invalid parameter: duplicate tool message for 'tool_call_id' of 'a'.",
    );
    expect(problem([user, calls("a"), tool("a"), user, calls("a"), tool("a")])).toMatch(
      /duplicate 'tool_call_id' of 'a' in 'tool_calls'/,
    );
  });

  it("5: answers every call before any other message, and by the end", () => {
    const missing =
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: b";
    expect(problem([user, calls("a", "b"), tool("a")])).toBe(missing);
    expect(problem([user, calls("a", "b"), tool("a"), user, tool("b")])).toBe(missing);
    expect(problem([user, calls("a", "b"), system, tool("a"), tool("b")])).toMatch(
      /did not have response messages: a, b$/,
    );
  });

  it("6: treats reasoning sent back as each host does", () => {
    const thought = { ...calls("a"), reasoning_content: "plan" };
    const loop = [user, thought, tool("a")];
    expect(problem(loop, "ignored")).toBeUndefined();
    expect(problem(loop, "rejected")).toBe(
      "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property 'reasoning_content' is unsupported)]",
    );
    expect(problem(loop, "required-for-tool-calls", [["a", "plan"]])).toBeUndefined();
    expect(problem([user, calls("a"), tool("a")], "required-for-tool-calls", [["a", "plan"]])).toBe(
      "The `reasoning_content` in the thinking mode must be passed back to the API.",
    );
    expect(
      problem(
        [user, { ...thought, reasoning_content: "plan " }, tool("a")],
        "required-for-tool-calls",
        [["a", "plan"]],
      ),
    ).toMatch(/must be passed back/);
  });
});

describe("the loopback Chat Completions API's field rules", () => {
  it("7: accepts the legacy function role with its name, and an assistant's function_call without content", () => {
    const legacyCall = {
      role: "assistant",
      content: null,
      function_call: { name: "read", arguments: "{}" },
    };
    const legacyResult = { role: "function", name: "read", content: "ok" };
    expect(problem([user, legacyCall, legacyResult, user])).toBeUndefined();
    expect(problem([user, legacyCall, { ...legacyResult, content: null }])).toBeUndefined();
    expect(problem([user, legacyCall, { role: "function", content: "ok" }])).toBe(
      "Missing required parameter: 'messages[2].name'.",
    );
    expect(
      problem([user, legacyCall, { ...legacyResult, content: [{ type: "text", text: "ok" }] }]),
    ).toBe("Invalid type for 'messages[2].content': expected a string, but got an array instead.");
    // A function message does not answer tool calls.
    expect(problem([user, calls("a"), legacyResult, tool("a")])).toMatch(
      /did not have response messages: a$/,
    );
  });

  it("8: refuses a name that is not a string", () => {
    expect(problem([{ ...user, name: "ada" }])).toBeUndefined();
    expect(problem([{ ...user, name: 5 }])).toBe(
      "Invalid type for 'messages[0].name': expected a string, but got an integer instead.",
    );
    expect(problem([user, { role: "assistant", content: "hi", name: null }])).toBe(
      "Invalid type for 'messages[1].name': expected a string, but got null instead.",
    );
  });

  it("9: refuses a tool call without its type, or of a type the API does not know", () => {
    const typed = (type: unknown) => ({
      role: "assistant",
      content: null,
      tool_calls: [{ ...call("a"), type }],
    });
    const custom = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "a", type: "custom", custom: { name: "patch", input: "x" } }],
    };
    expect(problem([user, custom, tool("a")])).toBeUndefined();
    expect(problem([user, typed(undefined), tool("a")])).toBe(
      "Missing required parameter: 'messages[1].tool_calls[0].type'.",
    );
    expect(problem([user, typed("foo"), tool("a")])).toBe(
      "Invalid value: 'foo'. Supported values are: 'function' and 'custom'.",
    );
  });

  it("10: refuses an image_url that is not an object with a string url", () => {
    const image = (image_url: unknown) => ({
      role: "user",
      content: [{ type: "image_url", image_url }],
    });
    expect(problem([image({ url: "https://x/y.png", detail: "low" })])).toBeUndefined();
    expect(problem([image("https://x/y.png")])).toBe(
      "Invalid type for 'messages[0].content[0].image_url': expected an object, but got a string instead.",
    );
    expect(problem([image({})])).toBe(
      "Missing required parameter: 'messages[0].content[0].image_url.url'.",
    );
    expect(problem([image({ url: 7 })])).toBe(
      "Invalid type for 'messages[0].content[0].image_url.url': expected a string, but got an integer instead.",
    );
    expect(problem([image({ url: "https://x/y.png", detail: "max" })])).toBe(
      "Invalid value: 'max'. Supported values are: 'auto', 'low', and 'high'.",
    );
    expect(chatMessagesProblem([image({})], state())?.param).toBe(
      "messages[0].content[0].image_url.url",
    );
  });

  it("11: takes an assistant's audio as the id of a previous audio response, nothing more", () => {
    const spoken = (audio: unknown) => ({ role: "assistant", content: "Hello!", audio });
    expect(problem([user, spoken({ id: "audio_abc" }), user])).toBeUndefined();
    // The API's own audio reply has no text: sent back without content, or with `null`.
    const voiced = { role: "assistant", audio: { id: "audio_abc" } };
    expect(problem([user, voiced, user])).toBeUndefined();
    expect(problem([user, { ...voiced, content: null }, user])).toBeUndefined();
    expect(problem([user, spoken(null), user])).toBeUndefined();
    // The response's audio, as a stored history keeps it.
    const reply = { id: "audio_abc", data: "UklGR", expires_at: 1, transcript: "Hello!" };
    expect(problem([user, spoken(reply), user])).toBe(
      "Unknown parameter: 'messages[1].audio.data'.",
    );
    expect(chatMessagesProblem([user, spoken(reply)], state())?.param).toBe(
      "messages[1].audio.data",
    );
    expect(problem([user, spoken({ id: "audio_abc", transcript: "Hello!" })])).toBe(
      "Unknown parameter: 'messages[1].audio.transcript'.",
    );
    expect(problem([user, spoken({})])).toBe("Missing required parameter: 'messages[1].audio.id'.");
    expect(problem([user, spoken({ id: 7 })])).toBe(
      "Invalid type for 'messages[1].audio.id': expected a string, but got an integer instead.",
    );
    expect(problem([user, spoken("audio_abc")])).toBe(
      "Invalid type for 'messages[1].audio': expected an object, but got a string instead.",
    );
  });

  it("12: refuses a field the schema does not have, in a message, a part or a tool call", () => {
    const pdf = { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" };
    const parts = [
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
      { type: "input_audio", input_audio: { data: "UklGR", format: "wav" } },
      { type: "file", file: pdf },
    ];
    const reply = {
      role: "assistant",
      content: null,
      refusal: null,
      annotations: [],
      name: "helper",
      tool_calls: [call("c1"), { id: "c2", type: "custom", custom: { name: "sh", input: "ls" } }],
    };
    const schema = [
      { ...system, name: "rules" },
      { role: "developer", content: [{ type: "text", text: "Be kind." }] },
      { role: "user", content: parts, name: "ann" },
      reply,
      tool("c1"),
      tool("c2"),
      { role: "assistant", content: [{ type: "refusal", refusal: "No." }] },
      user,
    ];
    expect(problem(schema)).toBeUndefined();
    // The reasoning fields are rule 6's (ignored here, refused by Groq).
    expect(
      problem([user, { role: "assistant", content: "hi", reasoning_content: "…" }, user]),
    ).toBe(undefined);
    const refused: [unknown[], string][] = [
      [[{ ...user, id: "msg_1" }], "messages[0].id"],
      [[{ ...system, providerOptions: {} }, user], "messages[0].providerOptions"],
      [[user, { ...reply, tool_calls: [call("c1")], id: "m" }, tool("c1")], "messages[1].id"],
      [[user, calls("c1"), { ...tool("c1"), name: "read" }], "messages[2].name"],
      [
        [{ role: "user", content: [{ type: "text", text: "a", cache_control: {} }] }],
        "messages[0].content[0].cache_control",
      ],
      [
        [{ role: "user", content: [{ type: "file", file: { ...pdf, data: "x" } }] }],
        "messages[0].content[0].file.data",
      ],
      [
        [{ role: "user", content: [{ type: "image_url", image_url: { url: "u", size: 1 } }] }],
        "messages[0].content[0].image_url.size",
      ],
      [
        [user, { ...calls("c1"), tool_calls: [{ ...call("c1"), index: 0 }] }, tool("c1")],
        "messages[1].tool_calls[0].index",
      ],
      [
        [
          user,
          {
            ...calls("c1"),
            tool_calls: [
              { ...call("c1"), function: { name: "r", arguments: "{}", parsed_arguments: {} } },
            ],
          },
          tool("c1"),
        ],
        "messages[1].tool_calls[0].function.parsed_arguments",
      ],
      [
        [
          user,
          {
            role: "assistant",
            content: null,
            function_call: { name: "f", arguments: "{}", id: "x" },
          },
        ],
        "messages[1].function_call.id",
      ],
    ];
    for (const [messages, param] of refused) {
      expect(chatMessagesProblem(messages, state())).toEqual({
        message: `Unknown parameter: '${param}'.`,
        param,
      });
    }
  });
});

describe("ChatCompletionsServer through the openai SDK", () => {
  let server: ChatCompletionsServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ChatCompletionsServer.start(
      (request) =>
        (request.body["messages"] as unknown[]).length < 3
          ? { toolCalls: [{ name: "read", arguments: '{"path":"a.ts"}' }], reasoning: "read it" }
          : { content: "done" },
      { reasoning: "required-for-tool-calls", contextWindow: 200 },
    );
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("answers from the script, counts a repeated prefix as cached, and refuses with the API's 400s", async () => {
    const first = await client.chat.completions.create({
      model: "deepseek-v4-pro",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Read a.ts" },
      ],
    });
    const reply = first.choices[0]!.message;
    expect(reply.tool_calls?.[0]).toMatchObject({ type: "function", function: { name: "read" } });
    const id = reply.tool_calls![0]!.id;
    const history = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: "Read a.ts" },
    ];
    const withoutReasoning = client.chat.completions.create({
      model: "deepseek-v4-pro",
      messages: [
        ...history,
        { role: "assistant", content: null, tool_calls: reply.tool_calls! },
        { role: "tool", tool_call_id: id, content: "x" },
      ],
    });
    await expect(withoutReasoning).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(withoutReasoning).rejects.toThrow("must be passed back");
    const second = await client.chat.completions.create({
      model: "deepseek-v4-pro",
      messages: [...history, reply as never, { role: "tool", tool_call_id: id, content: "x" }],
    });
    expect(second.choices[0]!.message.content).toBe("done");
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(first.usage?.prompt_tokens);
    const tooLong = client.chat.completions.create({
      model: "deepseek-v4-pro",
      messages: [{ role: "user", content: "x".repeat(2_000) }],
    });
    await expect(tooLong).rejects.toMatchObject({ status: 400, code: "context_length_exceeded" });
    await expect(tooLong).rejects.toThrow(
      /maximum context length is 200 tokens\. However, your messages resulted in \d+ tokens/,
    );
  });
});

// validateConversation({ provider: "chat-completions" }) and the stand-in judge the same
// conversations alike: random histories (calls, results, system messages, in any order), the
// first converted by toChatMessages for the second.
const ids = fc.constantFrom("a", "b", "c");
const base = { sessionId: "s", turnId: { owner: "u", number: 1 }, createdAt: new Date(0) };
// Another model's image (a Gemini image model's reply), and another API's block (Anthropic's
// server tools), which Chat Completions has no place for.
const image: ContentBlock = { type: "image", source: { type: "url", url: "https://x/y.png" } };
const foreign: ContentBlock = {
  type: "opaque",
  block: { type: "mcp_tool_use", id: "m1", name: "n", server_name: "s", input: {} },
};
const block = fc.oneof(
  fc.constant<ContentBlock>({ type: "text", text: "hi" }),
  ids.map<ContentBlock>((id) => ({
    type: "tool_result",
    toolUseId: id,
    content: "ok",
    isError: false,
  })),
  fc.constant(foreign),
);
const message = fc.oneof(
  fc
    .array(block, { minLength: 1, maxLength: 3 })
    .map((content) => ({ role: "user" as const, content })),
  fc
    .tuple(fc.boolean(), fc.uniqueArray(ids, { maxLength: 2 }), fc.constantFrom(0, 1, 2, 3))
    .map(([says, calls, others]) => ({
      role: "assistant" as const,
      content: [
        ...(others & 1 ? [image] : []),
        ...(says ? [{ type: "text" as const, text: "ok" }] : []),
        ...(others & 2 ? [foreign] : []),
        ...calls.map((id) => ({ type: "tool_use" as const, id, name: "read", input: {} })),
      ],
    })),
  fc.constant({
    role: "user" as const,
    content: [
      {
        type: "opaque" as const,
        block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "x" } },
      },
    ],
  }),
);

describe("validateConversation({ provider: 'chat-completions' })", () => {
  it("accepts exactly what the stand-in accepts of the messages toChatMessages sends", () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), (specs) => {
        const messages = specs.map(
          (spec, index) => ({ ...base, id: `m${index}`, ...spec }) as Message,
        );
        // A message of no block is not one of ours: toChatMessages refuses it, naming it.
        const empty = messages.flatMap((each, index) =>
          each.content.length === 0 ? [`${index}.content`] : [],
        );
        if (empty.length > 0) {
          expect(refusedPaths(() => toChatMessages(messages))).toEqual(empty);
          return;
        }
        const valid = validateConversation(messages, { provider: "chat-completions" }).length === 0;
        expect(valid).toBe(chatMessagesProblem(toChatMessages(messages), state()) === undefined);
      }),
      { numRuns: 1_000 },
    );
  });

  // Found by the property above (review of 59g's F1): an image waiting for its calls' results
  // was written between the calls and results a later message gave.
  const mcp = { type: "mcp_tool_use", id: "m1", name: "n", server_name: "s", input: {} };
  const image: ContentBlock = { type: "image", source: { type: "url", url: "https://x/y.png" } };
  const result = (id: string): ContentBlock => ({
    type: "tool_result",
    toolUseId: id,
    content: "ok",
    isError: false,
  });
  const call = (id: string): ContentBlock => ({ type: "tool_use", id, name: "read", input: {} });
  it.each<[string, Pick<Message, "role" | "content">[]]>([
    [
      "past an assistant message left out",
      [
        { role: "assistant", content: [image, { type: "opaque", block: mcp }, call("c")] },
        { role: "assistant", content: [{ type: "opaque", block: mcp }] },
        { role: "user", content: [result("c")] },
      ],
    ],
    [
      "past a user message of nothing it writes",
      [
        { role: "assistant", content: [image, call("c")] },
        { role: "user", content: [{ type: "opaque", block: mcp }] },
        { role: "user", content: [result("c")] },
      ],
    ],
    [
      "after results given in two messages",
      [
        { role: "assistant", content: [image, call("c"), call("a")] },
        { role: "user", content: [result("c")] },
        { role: "user", content: [result("a")] },
        { role: "user", content: [{ type: "text", text: "go on" }] },
      ],
    ],
    [
      "from an assistant message of the image alone, after the calls before it",
      [
        { role: "assistant", content: [call("a")] },
        { role: "assistant", content: [image, { type: "opaque", block: mcp }] },
        { role: "user", content: [result("a")] },
      ],
    ],
  ])("takes another model's image after its calls' results, %s", (_name, specs) => {
    const messages = [{ role: "user", content: [{ type: "text", text: "hi" }] }, ...specs].map(
      (spec, index) => ({ ...base, id: `m${index}`, ...spec }) as Message,
    );
    expect(validateConversation(messages, { provider: "chat-completions" })).toEqual([]);
    expect(chatMessagesProblem(toChatMessages(messages), state())).toBeUndefined();
  });
});
