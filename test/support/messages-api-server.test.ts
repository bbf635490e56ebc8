import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonTextProblem } from "../../src/testing/anthropic-rules/json-text.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import { MessagesApiServer } from "./messages-api-server.js";

// The loopback Messages API refuses what the API refuses before the model reads a request: the
// structure of `messages` (anthropic-rules/request.ts, consecutive turns merged as the API
// merges them) and a body with a lone surrogate escape (anthropic-rules/json-text.ts).

type Param = Anthropic.MessageParam;

const user = (content: Param["content"]): Param => ({ role: "user", content });
const assistant = (content: Param["content"]): Param => ({ role: "assistant", content });
const call = (id: string): Anthropic.ToolUseBlockParam => ({
  type: "tool_use",
  id,
  name: "read",
  input: { path: "a.ts" },
});
const result = (id: string): Anthropic.ToolResultBlockParam => ({
  type: "tool_result",
  tool_use_id: id,
  content: "ok",
});
const text = (value: string): Anthropic.TextBlockParam => ({ type: "text", text: value });
const merged = (messages: unknown[]) => requestProblems(messages, { roles: "merged" });

const MISSING =
  "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.";

describe("the Messages API's structure rules, turns merged (the loopback's)", () => {
  it("accepts a tool loop, consecutive turns of one role, and a system message between turns", () => {
    expect(merged([user("go"), assistant([call("toolu_1")]), user([result("toolu_1")])])).toEqual(
      [],
    );
    // "Consecutive user or assistant turns in your request will be combined into a single turn."
    expect(merged([user("a"), user("b"), assistant("c"), assistant("d")])).toEqual([]);
    expect(
      merged([
        user("go"),
        assistant([text("Reading.")]),
        assistant([call("toolu_1")]),
        user([result("toolu_1")]),
        user("and then?"),
      ]),
    ).toEqual([]);
    const effort = { role: "system", content: [], output_config: { effort: "low" } };
    expect(
      merged([user("go"), assistant([call("toolu_1")]), effort, user([result("toolu_1")])]),
    ).toEqual([]);
    expect(merged([effort, user("go")])).toEqual([]);
  });

  it("refuses a tool_use without its tool_result in the next turn", () => {
    expect(merged([user("go"), assistant([call("toolu_1")]), user("and?")])).toEqual([MISSING]);
    // A final assistant turn may leave its calls open: the model continues it.
    expect(merged([user("go"), assistant([call("toolu_1")])])).toEqual([]);
  });

  it("refuses a tool_result answering no call of the turn before", () => {
    expect(merged([user([result("toolu_9")])])).toEqual([
      "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    ]);
  });

  it("refuses tool results after other content of the turn, merged messages included", () => {
    const notFirst =
      "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.";
    expect(
      merged([user("go"), assistant([call("toolu_1")]), user([text("here"), result("toolu_1")])]),
    ).toEqual([notFirst]);
    expect(
      merged([user("go"), assistant([call("toolu_1")]), user("here"), user([result("toolu_1")])]),
    ).toEqual([notFirst]);
  });

  it("refuses a first message not from the user, and empty messages but a final assistant one", () => {
    expect(merged([assistant("hi"), user("go")])).toEqual([
      'messages: first message must use the "user" role',
    ]);
    expect(merged([user(""), assistant("x")])).toEqual([
      "messages.0: all messages must have non-empty content except for the optional final assistant message",
    ]);
    expect(merged([user("go"), assistant([])])).toEqual([]);
  });

  it("refuses a tool_use id used twice in the request, even where the first call was answered", () => {
    const again = [
      user("go"),
      assistant([call("call_0")]),
      user([result("call_0")]),
      assistant([text("Once more."), call("call_0")]),
      user([result("call_0")]),
    ];
    const repeated = "messages.3.content.1: `tool_use` ids must be unique";
    expect(merged(again)).toEqual([repeated]);
    expect(requestProblems(again)).toEqual([repeated]);
    expect(merged([user("go"), assistant([call("call_0"), call("call_0")])])).toEqual([
      "messages.1.content.1: `tool_use` ids must be unique",
    ]);
  });

  it("leaves the default (AnthropicStandIn's) reading of roles as it was", () => {
    expect(requestProblems([user("a"), user("b")])).toEqual([
      'messages.1: roles must alternate (found two "user" in a row)',
    ]);
  });
});

describe("a lone surrogate escape in the body's text", () => {
  it("is refused with the API's reason and position; pairs and escaped backslashes are not", () => {
    expect(jsonTextProblem('{"a":"x\\ud800"}')).toBe(
      "The request body is not valid JSON: no low surrogate in string: line 1 column 14 (char 13)",
    );
    expect(jsonTextProblem('{"a":"x\\udc00y"}')).toBe(
      "The request body is not valid JSON: invalid high surrogate in string: line 1 column 8 (char 7)",
    );
    expect(jsonTextProblem('{"a":"\\ud800\\u0041"}')).toBe(
      "The request body is not valid JSON: invalid low surrogate in string: line 1 column 13 (char 12)",
    );
    expect(jsonTextProblem('{"a":"\\ud83d\\ude00","b":"\\\\ud800","c":"\\"\\n"}')).toBeUndefined();
    // Characters, not UTF-16 units, are counted: the emoji before is one.
    expect(jsonTextProblem('{"a":"😀\\udfff"}')).toBe(
      "The request body is not valid JSON: invalid high surrogate in string: line 1 column 8 (char 7)",
    );
    expect(jsonTextProblem('{\n"a":"\\ud800"}')).toBe(
      "The request body is not valid JSON: no low surrogate in string: line 2 column 12 (char 13)",
    );
  });

  it("is read in one pass: a long body of escapes is judged fast", () => {
    const body = `{"a":"${"\\ud83d\\ude00\\\\u".repeat(200_000)}\\ud800"}`;
    const started = performance.now();
    expect(jsonTextProblem(body)).toMatch(/^The request body is not valid JSON: no low surrogate/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("MessagesApiServer through @anthropic-ai/sdk", () => {
  let server: MessagesApiServer;
  let client: Anthropic;
  beforeAll(async () => {
    server = await MessagesApiServer.start();
    client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
  });
  afterAll(() => server.close());

  const send = (messages: Param[]) =>
    client.messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages });

  it("refuses a tool_use without its tool_result with the API's 400, on both endpoints", async () => {
    const messages = [user("Read a.ts"), assistant([call("toolu_1")]), user("Well?")];
    const refused = send(messages);
    await expect(refused).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: { type: "error", error: { type: "invalid_request_error", message: MISSING } },
    });
    const counted = client.messages.countTokens({ model: "claude-sonnet-5-5", messages });
    await expect(counted).rejects.toMatchObject({
      status: 400,
      error: { error: { message: MISSING } },
    });
    const answered = await send([
      user("Read a.ts"),
      assistant([call("toolu_1")]),
      user([result("toolu_1")]),
    ]);
    expect(answered.content).toMatchObject([{ type: "text", text: "ok" }]);
    // Review 57d: a 400 is a refusal, not an answer, so `refusals` (ai-sdk-providers.ts) sees it.
    const outcomes = await Promise.all(server.requests.slice(-3).map((request) => request.outcome));
    expect(outcomes).toEqual(["refused", "refused", "answered"]);
  });

  it("refuses a body with a lone surrogate, which JSON.parse would have read", async () => {
    const refused = send([user("half an emoji: \ud83d")]);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: {
        error: {
          type: "invalid_request_error",
          message: expect.stringMatching(
            /^The request body is not valid JSON: no low surrogate in string: line 1 column \d+ \(char \d+\)$/,
          ),
        },
      },
    });
    const whole = await send([user("a whole emoji: \ud83d\ude00")]);
    expect(whole.type).toBe("message");
  });

  // The tool use docs (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools):
  // "`none` prevents Claude from using any tools. This is the default value when no `tools` are
  // provided", and forced tool use "(any, tool) [is] not supported [with extended thinking] and
  // will result in an error. Only `tool_choice: {"type": "auto"}` (the default) and
  // `tool_choice: {"type": "none"}` are compatible with extended thinking."
  it("takes tool_choice none with tools, thinking or not; refuses one without tools or forced with thinking", async () => {
    const tools = [{ name: "read", input_schema: { type: "object" as const } }];
    const messages = [user("Read a.ts")];
    const create = (extra: Partial<Anthropic.MessageCreateParamsNonStreaming>) =>
      client.messages.create({ model: "claude-sonnet-5-5", max_tokens: 64, messages, ...extra });
    const thinking = { type: "enabled" as const, budget_tokens: 1024 };
    await expect(create({ tools, tool_choice: { type: "none" } })).resolves.toMatchObject({
      type: "message",
    });
    await expect(
      create({ tools, tool_choice: { type: "none" }, thinking, max_tokens: 2048 }),
    ).resolves.toMatchObject({ type: "message" });
    const message = (pattern: RegExp) => ({ status: 400, error: { error: { message: pattern } } });
    await expect(create({ tool_choice: { type: "none" } })).rejects.toMatchObject(
      message(/^tool_choice\.none may only be specified while providing tools$/),
    );
    await expect(
      create({ tools, tool_choice: { type: "any" }, thinking, max_tokens: 2048 }),
    ).rejects.toMatchObject(message(/not supported with extended thinking/));
    await expect(
      create({ tools, tool_choice: { type: "tool", name: "write" } }),
    ).rejects.toMatchObject(message(/^tool_choice\.name: no tool named "write"/));
    await expect(create({ tools, tool_choice: { type: "never" } as never })).rejects.toMatchObject(
      message(/^tool_choice\.type: Input should be/),
    );
  });
});
