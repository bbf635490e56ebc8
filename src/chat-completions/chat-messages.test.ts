import fc from "fast-check";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { MessagesSchema } from "../core/schemas.js";
import { SUMMARY_PREFIX } from "../core/summary-format.js";
import { AgentSession } from "../index.js";
import { CHAT_REASONING_BLOCK_TYPE } from "./chat-fields.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { toChatMessages } from "./chat-messages-out.js";

const text = fc.string({ maxLength: 10 });
const id = (prefix: string) =>
  fc.stringMatching(/^[a-z0-9]{1,6}$/).map((value) => `${prefix}_${value}`);
const textPart = text.map((value) => ({ type: "text", text: value }));
const imagePart = fc
  .tuple(
    fc.oneof(
      fc.webUrl(),
      fc
        .base64String({ minLength: 4, maxLength: 12 })
        .map((data) => `data:image/png;base64,${data}`),
      fc.constant("data:image/png;charset=x;base64,AAAA"),
    ),
    fc.option(fc.constantFrom("auto", "low", "high"), { nil: undefined }),
  )
  .map(([url, detail]) => ({
    type: "image_url",
    image_url: detail === undefined ? { url } : { url, detail },
  }));
const audioPart = fc.constant({ type: "input_audio", input_audio: { data: "AAA", format: "wav" } });
const filePart = id("file").map((fileId) => ({ type: "file", file: { file_id: fileId } }));
const name = fc.option(fc.constantFrom("ada", "bob"), { nil: undefined });
const withName = <T extends object>(value: T, who: string | undefined) =>
  who === undefined ? value : { ...value, name: who };

const system = fc.oneof(
  text.map((content) => ({ role: "system", content })),
  fc.array(textPart, { maxLength: 2 }).map((content) => ({ role: "developer", content })),
);
const user = fc
  .tuple(
    fc.oneof(text, fc.array(fc.oneof(textPart, imagePart, audioPart, filePart), { maxLength: 3 })),
    name,
  )
  .map(([content, who]) => withName({ role: "user", content }, who));
const args = fc.oneof(
  fc
    .dictionary(fc.constantFrom("path", "n"), fc.oneof(fc.string(), fc.integer()))
    .map((value) => JSON.stringify(value)),
  fc.constantFrom('{ "path": "a.ts" }', "not json", "[1,2]"),
);
const functionCall = fc.tuple(id("call"), args).map(([callId, argumentsText]) => ({
  id: callId,
  type: "function",
  function: { name: "read", arguments: argumentsText },
}));
const customCall = fc.tuple(id("call"), text).map(([callId, input]) => ({
  id: callId,
  type: "custom",
  custom: { name: "patch", input },
}));
const reasoningFields = fc.record(
  {
    reasoning_content: text,
    reasoning: fc.option(text, { nil: null }),
    reasoning_details: fc.array(
      fc.record({ type: fc.constant("reasoning.encrypted"), data: text }),
      { maxLength: 1 },
    ),
  },
  { requiredKeys: [] },
);
const assistant = fc
  .tuple(
    fc.option(
      fc.oneof(
        text,
        fc.array(
          fc.oneof(
            textPart,
            text.map((r) => ({ type: "refusal", refusal: r })),
          ),
          { maxLength: 2 },
        ),
      ),
      { nil: null },
    ),
    fc.array(fc.oneof(functionCall, customCall), { maxLength: 3 }),
    fc.option(text, { nil: undefined }),
    reasoningFields,
    name,
    fc.boolean(),
  )
  .filter(
    ([content, calls, refusal]) => content !== null || calls.length > 0 || refusal !== undefined,
  )
  .map(([content, calls, refusal, reasoning, who, absent]) => {
    const message: Record<string, unknown> = { role: "assistant", ...reasoning };
    if (!(absent && content === null && calls.length > 0)) message["content"] = content;
    if (refusal !== undefined) message["refusal"] = refusal;
    if (calls.length > 0) message["tool_calls"] = calls;
    return withName(message, who);
  });
// A tool message's parts: at least one (the API's schema refuses `[]`, which is written `""`).
const tool = fc
  .tuple(id("call"), fc.oneof(text, fc.array(textPart, { minLength: 1, maxLength: 2 })))
  .map(([callId, content]) => ({ role: "tool", tool_call_id: callId, content }));
const legacyFunction = text.map((content) => ({ role: "function", name: "f", content }));
const chatMessage = fc.oneof(system, user, assistant, tool, legacyFunction);

const convert = (messages: unknown[]) => fromChatMessages(messages, { sessionId: "s" });

/** Whether no tool call id comes twice among the assistant messages' calls. */
function callIdsDistinct(messages: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const message of messages as { tool_calls?: { id: string }[] }[])
    for (const call of message.tool_calls ?? []) {
      if (seen.has(call.id)) return false;
      seen.add(call.id);
    }
  return true;
}

describe("fromChatMessages / toChatMessages", () => {
  it("round-trips any message list exactly, into well-formed messages", () => {
    fc.assert(
      fc.property(fc.array(chatMessage, { maxLength: 10 }), (messages) => {
        // A call id used again is sent renamed (`<id>_<n>`, tested on its own): exact otherwise.
        fc.pre(callIdsDistinct(messages));
        const ours = convert(messages);
        expect(MessagesSchema.safeParse(ours).success).toBe(true);
        expect(toChatMessages(ours)).toEqual(messages);
      }),
      { numRuns: 400 },
    );
  });

  it("makes one user message of the tool messages after a turn's parallel calls, and assigns turns", () => {
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Read a and b" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "Two files.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "call_b", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "A" },
      { role: "tool", tool_call_id: "call_b", content: "B" },
      { role: "assistant", content: "Both read." },
      { role: "user", content: "Thanks" },
    ];
    const ours = convert(messages);
    expect(ours.map((message) => [message.role, message.turnId.number])).toEqual([
      ["user", 1],
      ["user", 1],
      ["assistant", 1],
      ["user", 1],
      ["assistant", 1],
      ["user", 2],
    ]);
    expect(ours[2]!.content.map((block) => block.type)).toEqual(["opaque", "tool_use", "tool_use"]);
    expect(ours[2]!.content[0]).toEqual({
      type: "opaque",
      block: { type: CHAT_REASONING_BLOCK_TYPE, reasoning_content: "Two files." },
    });
    expect(ours[2]!.content[1]).toMatchObject({ id: "call_a", name: "read", input: { path: "a" } });
    expect(ours[3]!.content).toEqual([
      { type: "tool_result", toolUseId: "call_a", content: "A", isError: false },
      { type: "tool_result", toolUseId: "call_b", content: "B", isError: false },
    ]);
    expect(toChatMessages(ours)).toEqual(messages);
  });

  it("leaves the reasoning fields out with reasoning: drop, null ones included", () => {
    const ours = convert([
      { role: "user", content: "hi" },
      { role: "assistant", content: "yo", reasoning: null, reasoning_content: "think" },
    ]);
    expect(toChatMessages(ours, { reasoning: "drop" })).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "yo" },
    ]);
    expect(() => toChatMessages(ours, { reasoning: "strip" as never })).toThrow(
      'toChatMessages options: reasoning: must be "keep" or "drop"',
    );
  });

  it("writes what it did not read in plain shapes: a summary, masked results, our own blocks", () => {
    const base = { sessionId: "s", createdAt: new Date(0) };
    const ours: Message[] = [
      {
        ...base,
        id: "m0",
        role: "user",
        turnId: { owner: "u", number: 0 },
        content: [
          { type: "text", text: `${SUMMARY_PREFIX}did things` },
          { type: "text", text: "[Earlier user message]: fix it" },
        ],
      },
      {
        ...base,
        id: "m1",
        role: "assistant",
        turnId: { owner: "u", number: 1 },
        content: [
          { type: "thinking", thinking: "hm", signature: "sig" },
          { type: "tool_use", id: "t1", name: "ls", input: { dir: "." } },
        ],
      },
      {
        ...base,
        id: "m2",
        role: "user",
        turnId: { owner: "u", number: 1 },
        content: [
          {
            type: "tool_result",
            toolUseId: "t1",
            isError: false,
            content: [
              { type: "text", text: "a.png" },
              { type: "image", source: { type: "base64", mediaType: "image/png", data: "QUJD" } },
            ],
          },
          { type: "text", text: "Now b." },
        ],
      },
    ];
    expect(toChatMessages(ours)).toEqual([
      { role: "user", content: `${SUMMARY_PREFIX}did things\n\n[Earlier user message]: fix it` },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "t1", type: "function", function: { name: "ls", arguments: '{"dir":"."}' } },
        ],
      },
      { role: "tool", tool_call_id: "t1", content: [{ type: "text", text: "a.png" }] },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,QUJD" } },
          { type: "text", text: "Now b." },
        ],
      },
    ]);
  });

  it("sends an assistant message that kept nothing with empty content, never null alone", () => {
    const ours = convert([
      { role: "user", content: "hi" },
      { role: "assistant", content: null, reasoning_content: "only thought" },
    ]);
    expect(toChatMessages(ours)).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "", reasoning_content: "only thought" },
    ]);
  });

  it("sends a tool result of no parts as an empty string: the API refuses an empty array (review 60f #6)", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("go");
    session.addAssistant([{ type: "tool_use", id: "c1", name: "noop", input: {} }]);
    session.addToolResults([{ type: "tool_result", toolUseId: "c1", content: [] }]);
    expect(toChatMessages(session.messages).at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "",
    });
  });

  it("gives back the null content of a message that answered by a deprecated function_call", () => {
    const params = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, function_call: { name: "read", arguments: "{}" } },
      { role: "function", name: "read", content: "text" },
    ];
    expect(toChatMessages(convert(params))).toEqual(params);
  });

  it("sends cleared tool inputs as new arguments, and the exact text while unchanged", () => {
    const ours = convert([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "f", arguments: '{ "a": 1 }' } },
        ],
      },
    ]);
    const [call] = (toChatMessages(ours)[1] as { tool_calls: unknown }).tool_calls as {
      function: { arguments: string };
    }[];
    expect(call!.function.arguments).toBe('{ "a": 1 }');
    const cleared = structuredClone(ours);
    (cleared[1]!.content[0] as { input: object }).input = { cleared: true };
    const [again] = (toChatMessages(cleared)[1] as { tool_calls: unknown }).tool_calls as {
      function: { arguments: string };
    }[];
    expect(again!.function.arguments).toBe('{"cleared":true}');
  });

  it("copies: nothing of the input or of our messages is shared with the output", () => {
    const input = [
      {
        role: "user",
        name: "ada",
        content: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }],
      },
    ];
    const ours = convert(input);
    (input[0]!.content[0]!.cache_control as { type: string }).type = "changed";
    const out = toChatMessages(ours) as unknown as typeof input;
    expect(out[0]!.content[0]!.cache_control).toEqual({ type: "ephemeral" });
    out[0]!.content[0]!.cache_control.type = "mutated";
    expect(toChatMessages(ours)).toEqual([
      {
        role: "user",
        name: "ada",
        content: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }],
      },
    ]);
  });

  it("names the path of each malformed message", () => {
    const bad = [
      { role: "narrator", content: "x" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "", type: "function", function: { name: "f" } }],
      },
      { role: "tool", content: "x" },
      { role: "user", content: 7 },
      { role: "user", content: "fine", extra: () => 1 },
    ];
    let error: unknown;
    try {
      convert(bad);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    // In message order: each message is copied, then read.
    expect((error as ValidationError).issues.map((issue) => issue.path.join("."))).toEqual([
      "0.role",
      "1.tool_calls.0.id",
      "1.tool_calls.0.function.arguments",
      "2.tool_call_id",
      "3.content",
      "4.extra",
    ]);
    expect(() => fromChatMessages("hi" as never)).toThrow(ValidationError);
    expect(() => fromChatMessages([], { firstTurnNumber: 0 })).toThrow("firstTurnNumber");
  });

  it("accepts the SDK's own message params as they are typed", () => {
    const params: ChatCompletionMessageParam[] = [
      { role: "developer", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ];
    expect(toChatMessages(fromChatMessages(params))).toEqual(params);
  });
});

describe("fromChatMessages on a field nested deep", () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 1;
    for (let level = 0; level < levels; level += 1) value = { a: value };
    return value;
  };

  // Read in full, a field is checked from where it stands and kept 2 or 3 levels deeper under
  // `extra`: 254 levels passed the conversion and were remembered as checked, though the
  // messages' schema refuses them.
  it("refuses what would nest past the messages' limit once kept, and keeps what does not", () => {
    const deep = [{ role: "user", content: "hi", meta: nested(254) }];
    expect(() => fromChatMessages(deep as never)).toThrow(/nests deeper than 256 levels/);
    const kept = fromChatMessages([{ role: "user", content: "hi", meta: nested(200) }] as never);
    expect(MessagesSchema.safeParse(kept).success).toBe(true);
  });
});
