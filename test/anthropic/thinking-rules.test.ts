import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { BetaMessageParam } from "@anthropic-ai/sdk/resources/beta/messages";
import type { ContentBlockParam, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { offlineClaude } from "../../examples/support/offline-claude.js";
import {
  checkThinkingPrefix,
  judgeThinking,
  signReplyContent,
  THINKING_BINDING_BETA,
  thinkingProblems,
  toolLoopThinkingProblem,
} from "../../examples/support/thinking-rules.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import {
  MessagesApiServer,
  type ReplyScript,
  roughTokens,
} from "../support/messages-api-server.js";

/**
 * The preserved-thinking rules of the loopback Messages API, one test each (the rules and
 * their sources are written down in `src/testing/anthropic-rules/thinking.ts`): first
 * the pure check a benchmark runs offline, then the server through the real SDK.
 */

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] } & Record<string, unknown>;
interface Body {
  system?: unknown;
  tools?: unknown;
  messages: Message[];
  thinking?: unknown;
}

const SYSTEM = "You fix failing tests.";
const TOOLS: Tool[] = [
  {
    name: "read_file",
    description: "Reads a file",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "run_tests",
    description: "Runs the test suite",
    input_schema: { type: "object", properties: {} },
  },
];

const BOUND = (path: string, type = "`signature` in `thinking`") =>
  `${path}: Invalid ${type} block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`;
const NEEDS_BETA = ` That setting requires the \`${THINKING_BINDING_BETA}\` value in the \`anthropic-beta\` header.`;

/** Plays the model offline: the next assistant turn, its thinking signed as the server signs it. */
function turn(body: Body, content: Block[]): Message {
  return { role: "assistant", content: signReplyContent(body, content) };
}

function toolResult(id: string, content: string): Message {
  return { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] };
}

/**
 * Three assistant turns, each led by a thinking block: at messages.1, .3 and .5, content 0.
 * The last user message starts a new turn.
 */
function conversation(): Body {
  const body: Body = { system: SYSTEM, tools: TOOLS, messages: [] };
  const add = (message: Message) => body.messages.push(message);
  add({ role: "user", content: "Fix the failing test in src/a.ts." });
  add(
    turn(body, [
      { type: "thinking", thinking: "Read the test first." },
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "src/a.ts" } },
    ]),
  );
  add(toolResult("toolu_1", "export const a = 1;"));
  add(
    turn(body, [
      { type: "thinking", thinking: "The constant looks wrong; run the tests." },
      { type: "text", text: "Running the tests.", citations: null },
      { type: "tool_use", id: "toolu_2", name: "run_tests", input: {} },
    ]),
  );
  add(toolResult("toolu_2", "1 failed: expected a to be 2"));
  add(
    turn(body, [
      { type: "thinking", thinking: "" },
      { type: "text", text: "Change a to 2.", citations: null },
    ]),
  );
  add({ role: "user", content: "Do it." });
  return body;
}

function edited(body: Body, edit: (copy: Body) => void): Body {
  const copy = structuredClone(body);
  edit(copy);
  return copy;
}

function blocks(message: Message | undefined): Block[] {
  return Array.isArray(message?.content) ? message.content : [];
}

function withoutThinking(copy: Body, ...indexes: number[]): void {
  for (const index of indexes) {
    const message = copy.messages[index]!;
    message.content = blocks(message).filter(
      (block) => block["type"] !== "thinking" && block["type"] !== "redacted_thinking",
    );
  }
}

const failingPaths = (body: Body) => checkThinkingPrefix(body).map((failure) => failure.path);

describe("the prefix check, offline (checkThinkingPrefix)", () => {
  it("accepts a conversation sent back exactly as it grew", () => {
    const body = conversation();
    expect(checkThinkingPrefix(body)).toEqual([]);
    expect(thinkingProblems(body)).toEqual([]);
    expect(requestProblems(body.messages)).toEqual([]);
  });

  it.each([
    [
      "a tool result masked",
      (copy: Body) => {
        blocks(copy.messages[2])[0]!["content"] = "[cleared]";
      },
    ],
    [
      "a text block added to an earlier user turn",
      (copy: Body) => {
        copy.messages[2]!.content = [...blocks(copy.messages[2]), { type: "text", text: "hint" }];
      },
    ],
    [
      "a tool_use input changed",
      (copy: Body) => {
        blocks(copy.messages[1])[1]!["input"] = { path: "src/b.ts" };
      },
    ],
    [
      "an earlier message reworded",
      (copy: Body) => {
        copy.messages[0]!.content = "Fix the failing test in src/a.ts, quickly.";
      },
    ],
  ])(
    "an edit before a block (%s) invalidates it and every later block, not earlier ones",
    (_, edit) => {
      const body = edited(conversation(), edit);
      const failures = checkThinkingPrefix(body);
      const first = failures[0]!;
      expect(failures.every((failure) => failure.reason === "prefix_binding_mismatch")).toBe(true);
      expect(failures.map((failure) => failure.path)).toEqual(
        first.messageIndex === 1
          ? ["messages.1.content.0", "messages.3.content.0", "messages.5.content.0"]
          : ["messages.3.content.0", "messages.5.content.0"],
      );
      expect(first.changed).toBe("messages");
      expect(first.message).toBe(
        `${BOUND(first.path)} A message before the block differs from when the block was created.`,
      );
      expect(thinkingProblems(body)).toEqual([first.message]);
    },
  );

  it("keeps later blocks valid when a leading run of thinking blocks is removed (oldest first)", () => {
    expect(failingPaths(edited(conversation(), (copy) => withoutThinking(copy, 1)))).toEqual([]);
    expect(failingPaths(edited(conversation(), (copy) => withoutThinking(copy, 1, 3)))).toEqual([]);
  });

  it("invalidates every later block when a thinking block between two others is removed", () => {
    const failures = checkThinkingPrefix(
      edited(conversation(), (copy) => withoutThinking(copy, 3)),
    );
    expect(failures).toMatchObject([
      {
        path: "messages.5.content.0",
        reason: "prefix_binding_mismatch",
        changed: "earlier_thinking",
      },
    ]);
    expect(failures[0]!.message).toBe(
      `${BOUND("messages.5.content.0")} A thinking block before it was left out or moved.`,
    );
  });

  it("accepts an edit once every thinking block after it is removed (assistant turns left without thinking)", () => {
    const body = edited(conversation(), (copy) => {
      blocks(copy.messages[2])[0]!["content"] = "[cleared]";
      withoutThinking(copy, 3, 5);
    });
    expect(checkThinkingPrefix(body)).toEqual([]);
    // The blocks before the edit stay valid, and so does everything appended later.
    body.messages.push(turn(body, [{ type: "thinking", thinking: "Edit src/a.ts." }]));
    body.messages.push({ role: "user", content: "Thanks." });
    expect(checkThinkingPrefix(body)).toEqual([]);
  });

  it("invalidates every block when system or tools change, and says which", () => {
    const system = checkThinkingPrefix(
      edited(conversation(), (copy) => {
        copy.system = `${SYSTEM} Today is Monday.`;
      }),
    );
    expect(system.map((failure) => [failure.path, failure.changed])).toEqual([
      ["messages.1.content.0", "system"],
      ["messages.3.content.0", "system"],
      ["messages.5.content.0", "system"],
    ]);
    expect(system[0]!.message).toContain("The `system` prompt differs from when the block");
    const described = checkThinkingPrefix(
      edited(conversation(), (copy) => {
        (copy.tools as Tool[])[1]!.description = "Runs every test";
      }),
    );
    expect(described.map((failure) => failure.changed)).toEqual(["tools", "tools", "tools"]);
    expect(described[0]!.message).toContain("The `tools` list differs from when the block");
    const added = edited(conversation(), (copy) => {
      (copy.tools as unknown[]).push({ name: "deploy", input_schema: { type: "object" } });
    });
    expect(failingPaths(added)).toHaveLength(3);
  });

  it("ignores what is not part of the prefix: tool order, deferred tools, cache_control, parameters, null fields", () => {
    const body = edited(conversation(), (copy) => {
      copy.tools = [...(copy.tools as Tool[])].reverse();
      (copy.tools as unknown[]).push({
        name: "deploy",
        input_schema: { type: "object" },
        defer_loading: true,
      });
      copy.system = [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }];
      blocks(copy.messages[2])[0]!["cache_control"] = { type: "ephemeral" };
      for (const block of blocks(copy.messages[3])) delete block["citations"];
      copy.messages[0]!.content = [{ type: "text", text: "Fix the failing test in src/a.ts." }];
      copy.thinking = { type: "adaptive" };
      Object.assign(copy, { max_tokens: 99, output_config: { effort: "low" } });
    });
    expect(checkThinkingPrefix(body)).toEqual([]);
    // Once a tool_addition block offers the deferred tool, it is part of the prefix after it.
    body.messages.push({
      role: "system",
      content: [{ type: "tool_addition", tool: { type: "tool_reference", name: "deploy" } }],
    });
    body.messages.push(turn(body, [{ type: "thinking", thinking: "Deploy now." }]));
    body.messages.push({ role: "user", content: "Go." });
    expect(checkThinkingPrefix(body)).toEqual([]);
    const renamed = edited(body, (copy) => {
      (copy.tools as Tool[]).find((tool) => tool.name === "deploy")!.description = "Ships it";
    });
    expect(failingPaths(renamed)).toEqual(["messages.8.content.0"]);
  });

  it("checks redacted_thinking blocks the same way", () => {
    const body: Body = {
      system: SYSTEM,
      tools: TOOLS,
      messages: [{ role: "user", content: "Go." }],
    };
    body.messages.push(
      turn(body, [
        { type: "thinking", thinking: "First." },
        { type: "tool_use", id: "toolu_1", name: "run_tests", input: {} },
      ]),
      toolResult("toolu_1", "2 failed"),
    );
    body.messages.push(
      turn(body, [
        { type: "redacted_thinking", hidden: "Second, hidden." },
        { type: "tool_use", id: "toolu_2", name: "run_tests", input: {} },
      ]),
      toolResult("toolu_2", "1 failed"),
    );
    body.messages.push(turn(body, [{ type: "thinking", thinking: "Third." }]));
    body.messages.push({ role: "user", content: "Go on." });
    const redacted = blocks(body.messages[3])[0]!;
    expect(Object.keys(redacted).sort()).toEqual(["data", "type"]);
    expect(checkThinkingPrefix(body)).toEqual([]);

    const masked = edited(body, (copy) => {
      blocks(copy.messages[2])[0]!["content"] = "[cleared]";
    });
    const failures = checkThinkingPrefix(masked);
    expect(failures.map((failure) => [failure.path, failure.type])).toEqual([
      ["messages.3.content.0", "redacted_thinking"],
      ["messages.5.content.0", "thinking"],
    ]);
    expect(failures[0]!.message).toBe(
      `${BOUND("messages.3.content.0", "`data` in `redacted_thinking`")} A message before the block differs from when the block was created.`,
    );
    // Filtered out from the middle: the later block fails.
    expect(failingPaths(edited(body, (copy) => withoutThinking(copy, 3)))).toEqual([
      "messages.5.content.0",
    ]);
    // Removed as part of the leading run: fine.
    expect(failingPaths(edited(body, (copy) => withoutThinking(copy, 1, 3)))).toEqual([]);
  });

  it("fails a tampered block whatever else holds, and drops a block it cannot read", () => {
    const tampered = edited(conversation(), (copy) => {
      blocks(copy.messages[3])[0]!["thinking"] = "The constant is fine.";
    });
    // A tampered block is never shown, so the block after it has lost its predecessor.
    expect(checkThinkingPrefix(tampered)).toMatchObject([
      { path: "messages.3.content.0", reason: "signature_invalid" },
      { path: "messages.5.content.0", reason: "prefix_binding_mismatch" },
    ]);
    expect(thinkingProblems(tampered)).toEqual([
      "messages.3.content.0: Invalid `signature` in `thinking` block",
    ]);
    const foreign = edited(conversation(), (copy) => {
      blocks(copy.messages[5])[0]!["signature"] = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYtfo";
    });
    expect(checkThinkingPrefix(foreign)).toMatchObject([
      { path: "messages.5.content.0", reason: "model_binding_mismatch" },
    ]);
    expect(thinkingProblems(foreign)).toEqual([]);
  });

  it("keeps thinking produced after a drop valid (keep-tail compaction with drop_block)", () => {
    const full = conversation();
    // The first turn folded into a summary; turns 2 and 3 kept verbatim, thinking included.
    const compacted: Body = {
      system: SYSTEM,
      tools: TOOLS,
      messages: [
        { role: "user", content: "Summary: read src/a.ts (a = 1). Continue fixing the test." },
        ...full.messages.slice(3),
      ],
    };
    expect(failingPaths(compacted)).toEqual(["messages.1.content.0", "messages.3.content.0"]);
    const verdict = judgeThinking({
      body: {
        ...compacted,
        thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
      },
      headers: { "anthropic-beta": THINKING_BINDING_BETA },
    });
    expect(verdict).toMatchObject({
      ok: true,
      inputTransformations: [
        {
          type: "thinking_dropped",
          path: "messages.1.content.0",
          reason: "prefix_binding_mismatch",
        },
        {
          type: "thinking_dropped",
          path: "messages.3.content.0",
          reason: "prefix_binding_mismatch",
        },
      ],
    });
    if (!verdict.ok) return;
    compacted.messages.push({
      role: "assistant",
      content: signReplyContent(
        compacted,
        [
          { type: "thinking", thinking: "Editing src/a.ts." },
          { type: "text", text: "Done." },
        ],
        verdict.previous,
      ),
    });
    compacted.messages.push({ role: "user", content: "Thanks." });
    // The kept turns still fail (keep sending drop_block); the new block follows the summary.
    expect(failingPaths(compacted)).toEqual(["messages.1.content.0", "messages.3.content.0"]);
    // Strip the stale ones and nothing fails.
    expect(failingPaths(edited(compacted, (copy) => withoutThinking(copy, 1, 3)))).toEqual([]);
  });

  it("starts the prefix at the latest compaction block (server-side compaction)", () => {
    const body: Body = {
      system: SYSTEM,
      tools: TOOLS,
      messages: [
        { role: "user", content: "Old request." },
        {
          role: "assistant",
          content: [{ type: "compaction", content: "Summary.", signature: "c1" }],
        },
        { role: "user", content: "Next request." },
      ],
    };
    body.messages.push(turn(body, [{ type: "thinking", thinking: "On it." }]));
    body.messages.push({ role: "user", content: "Go on." });
    const dropped = edited(body, (copy) => {
      copy.messages[0]!.content = "Older request, edited.";
    });
    expect(checkThinkingPrefix(dropped)).toEqual([]);
  });
});

describe("the tool loop, offline (toolLoopThinkingProblem)", () => {
  const inLoop = (thinking: unknown): Body => ({
    ...conversation(),
    messages: conversation().messages.slice(0, 3),
    ...(thinking === undefined ? {} : { thinking }),
  });

  it("needs the thinking of the assistant turn whose tool use the request continues", () => {
    const stripped = edited(inLoop({ type: "adaptive" }), (copy) => withoutThinking(copy, 1));
    const problem =
      "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
    expect(toolLoopThinkingProblem(stripped)).toBe(problem);
    expect(thinkingProblems(stripped)).toEqual([problem]);
    expect(
      toolLoopThinkingProblem(
        edited(inLoop({ type: "enabled", budget_tokens: 2048 }), (copy) =>
          withoutThinking(copy, 1),
        ),
      ),
    ).toBe(problem);
    // A model that thinks by default needs it without a `thinking` parameter too.
    const unset = edited(inLoop(undefined), (copy) => withoutThinking(copy, 1));
    expect(toolLoopThinkingProblem(unset, { thinkByDefault: true })).toBe(problem);
  });

  it("asks nothing when thinking is off, the turn has ended, or the thinking is there", () => {
    expect(toolLoopThinkingProblem(inLoop({ type: "adaptive" }))).toBeUndefined();
    const off = edited(inLoop({ type: "disabled" }), (copy) => withoutThinking(copy, 1));
    expect(toolLoopThinkingProblem(off)).toBeUndefined();
    expect(
      toolLoopThinkingProblem(edited(inLoop(undefined), (copy) => withoutThinking(copy, 1))),
    ).toBeUndefined();
    // Earlier rounds of the loop and finished turns may lose their thinking (a leading run).
    const ended = edited({ ...conversation(), thinking: { type: "adaptive" } }, (copy) =>
      withoutThinking(copy, 1, 3, 5),
    );
    expect(toolLoopThinkingProblem(ended)).toBeUndefined();
    expect(thinkingProblems(ended)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

const API_KEY = "sk-ant-api03-thinking-0123456789abcdef";
const MODEL = "claude-fable-5-1";
const ADAPTIVE = { type: "adaptive" } as const;
const DROP = {
  type: "adaptive",
  block_binding: { prefix_mismatch_behavior: "drop_block" },
} as const;

let server: MessagesApiServer;
let scriptCalls = 0;

function counted(script: ReplyScript): ReplyScript {
  return (request) => {
    scriptCalls += 1;
    return typeof script === "function" ? script(request) : script;
  };
}

beforeEach(async () => {
  scriptCalls = 0;
  server = await MessagesApiServer.start({ onMessages: counted(offlineClaude()) });
});

afterEach(async () => {
  await server.close();
});

function sdk(): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
}

async function rejection(
  request: Promise<unknown>,
): Promise<{ status: unknown; type: unknown; message: unknown }> {
  try {
    await request;
  } catch (error) {
    if (error instanceof APIError) {
      return { status: error.status, type: error.type, message: error.apiMessage };
    }
    throw error;
  }
  throw new Error("the request was accepted");
}

/** Runs the agent's tool loop for one task, sending every turn back exactly as returned. */
async function agentLoop(client: Anthropic, messages: MessageParam[], task: string): Promise<void> {
  messages.push({ role: "user", content: task });
  for (let step = 0; step < 6; step += 1) {
    const reply = await client.messages.create({
      model: MODEL,
      max_tokens: 4096,
      system: SYSTEM,
      tools: TOOLS,
      thinking: ADAPTIVE,
      messages,
    });
    messages.push({ role: "assistant", content: reply.content as ContentBlockParam[] });
    const calls = reply.content.filter((block) => block.type === "tool_use");
    if (calls.length === 0) return;
    messages.push({
      role: "user",
      content: calls.map((call) => ({
        type: "tool_result" as const,
        tool_use_id: call.id,
        content: `${String((call.input as { path?: unknown }).path)}: export const a = 1;`,
      })),
    });
  }
}

/** Two tasks through the server: thinking at messages.1/3/5 (task 1) and .7/.9 (task 2). */
async function grownConversation(client: Anthropic): Promise<MessageParam[]> {
  const messages: MessageParam[] = [];
  await agentLoop(client, messages, "Read src/a.ts and src/b.ts.");
  await agentLoop(client, messages, "Read src/c.ts.");
  messages.push({ role: "user", content: "Which files did you read?" });
  return messages;
}

const send = (client: Anthropic, messages: MessageParam[], extra: object = {}) =>
  client.messages.create({
    model: MODEL,
    max_tokens: 4096,
    system: SYSTEM,
    tools: TOOLS,
    thinking: ADAPTIVE,
    messages,
    ...extra,
  });

const sendBeta = (client: Anthropic, messages: MessageParam[], extra: object = {}) =>
  client.beta.messages.create({
    model: MODEL,
    max_tokens: 4096,
    system: SYSTEM,
    tools: TOOLS,
    thinking: DROP,
    messages: messages as BetaMessageParam[],
    betas: [THINKING_BINDING_BETA],
    ...extra,
  });

function contentOf(message: MessageParam | undefined): Block[] {
  return Array.isArray(message?.content) ? (message.content as unknown as Block[]) : [];
}

function withContent(message: MessageParam | undefined, content: Block[]): MessageParam {
  return { ...message, content } as unknown as MessageParam;
}

describe("the loopback server through the real SDK", () => {
  it("leads each reply with a signed thinking block while the request thinks, and accepts an append-only loop", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    const assistant = messages.filter((message) => message.role === "assistant");
    expect(assistant).toHaveLength(5);
    for (const message of assistant) {
      expect(contentOf(message)[0]).toMatchObject({
        type: "thinking",
        thinking: expect.any(String),
        signature: expect.any(String),
      });
    }
    const reply = await send(client, messages);
    expect(reply.content[0]?.type).toBe("thinking");
    for (const request of server.requestsTo("messages")) {
      expect(checkThinkingPrefix(request.body)).toEqual([]);
    }
    // Without the beta header the response carries no input_transformations.
    expect(reply).not.toHaveProperty("input_transformations");
  });

  it("answers as before when the request does not think", async () => {
    const client = sdk();
    const reply = await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: "user", content: "Which files did you read?" }],
    });
    expect(reply.content.map((block) => block.type)).toEqual(["text"]);
  });

  it("rejects an edited earlier message with a 400 naming the first invalid block, in the docs' words", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    const calls = scriptCalls;
    (contentOf(messages[2])[0] as { content: string }).content = "[read src/a.ts]";
    expect(await rejection(send(client, messages))).toEqual({
      status: 400,
      type: "invalid_request_error",
      message: `${BOUND("messages.3.content.0")}${NEEDS_BETA} A message before the block differs from when the block was created.`,
    });
    // The model never ran: the script was not asked.
    expect(scriptCalls).toBe(calls);
    // With the beta header and "error" the message leaves out the header sentence.
    expect(
      await rejection(
        sendBeta(client, messages, {
          thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "error" } },
        }),
      ),
    ).toMatchObject({
      status: 400,
      message: `${BOUND("messages.3.content.0")} A message before the block differs from when the block was created.`,
    });
  });

  it("drops the invalid blocks with drop_block and lists them in input_transformations", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    const clean = await sendBeta(client, messages);
    expect(clean.input_transformations).toEqual([]);

    (contentOf(messages[2])[0] as { content: string }).content = "[read src/a.ts]";
    const reply = await sendBeta(client, messages);
    expect(reply.input_transformations).toEqual(
      [
        "messages.3.content.0",
        "messages.5.content.0",
        "messages.7.content.0",
        "messages.9.content.0",
      ].map((path) => ({ type: "thinking_dropped", path, reason: "prefix_binding_mismatch" })),
    );
    // The reply's thinking follows what the model was shown, so it stays valid next time.
    messages.push({ role: "assistant", content: reply.content as ContentBlockParam[] });
    messages.push({ role: "user", content: "Thanks." });
    const next = await sendBeta(client, messages);
    expect(next.input_transformations?.map((entry) => entry.path)).toEqual([
      "messages.3.content.0",
      "messages.5.content.0",
      "messages.7.content.0",
      "messages.9.content.0",
    ]);
  });

  it("does not count dropped blocks as input", async () => {
    const plain = await MessagesApiServer.start();
    try {
      const client = new Anthropic({ baseURL: plain.url, apiKey: API_KEY, maxRetries: 0 });
      const body = edited(conversation(), (copy) => {
        blocks(copy.messages[2])[0]!["content"] = "[cleared]";
      });
      const reply = await client.beta.messages.create({
        model: MODEL,
        max_tokens: 64,
        system: SYSTEM,
        tools: TOOLS,
        thinking: DROP,
        messages: body.messages as unknown as BetaMessageParam[],
        betas: [THINKING_BINDING_BETA],
      });
      expect(reply.input_transformations?.map((entry) => entry.path)).toEqual([
        "messages.3.content.0",
        "messages.5.content.0",
      ]);
      const shown = edited(body, (copy) => withoutThinking(copy, 3, 5));
      expect(reply.usage.input_tokens).toBe(
        roughTokens({ system: SYSTEM, tools: TOOLS, messages: shown.messages }),
      );
    } finally {
      await plain.close();
    }
  });

  it("invalidates the later blocks when a thinking block between two others is removed", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    messages[5] = withContent(messages[5], contentOf(messages[5]).slice(1));
    expect(await rejection(send(client, messages))).toMatchObject({
      status: 400,
      message: `${BOUND("messages.7.content.0")}${NEEDS_BETA} A thinking block before it was left out or moved.`,
    });
    const reply = await sendBeta(client, messages);
    expect(reply.input_transformations?.map((entry) => entry.path)).toEqual([
      "messages.7.content.0",
      "messages.9.content.0",
    ]);
  });

  it("accepts the history once every thinking block after the edit is removed", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    (contentOf(messages[2])[0] as { content: string }).content = "[read src/a.ts]";
    for (const index of [3, 5, 7, 9]) {
      messages[index] = withContent(
        messages[index],
        contentOf(messages[index]).filter((block) => block["type"] !== "thinking"),
      );
    }
    const reply = await sendBeta(client, messages);
    expect(reply.input_transformations).toEqual([]);
  });

  it("rejects a changed system prompt or tool list", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    expect(
      await rejection(send(client, messages, { system: `${SYSTEM} Be brief.` })),
    ).toMatchObject({
      status: 400,
      message: `${BOUND("messages.1.content.0")}${NEEDS_BETA} The \`system\` prompt differs from when the block was created.`,
    });
    const tools = [...TOOLS, { name: "deploy", input_schema: { type: "object" as const } }];
    expect(await rejection(send(client, messages, { tools }))).toMatchObject({
      status: 400,
      message: `${BOUND("messages.1.content.0")}${NEEDS_BETA} The \`tools\` list differs from when the block was created.`,
    });
  });

  it("signs and checks redacted_thinking blocks the same way", async () => {
    const client = sdk();
    server.queue("messages", {
      type: "message",
      redactedThinking: "The user wants src/a.ts.",
      content: [
        { type: "tool_use", id: "toolu_r1", name: "read_file", input: { path: "src/a.ts" } },
      ],
    });
    const messages: MessageParam[] = [{ role: "user", content: "Read src/a.ts." }];
    const first = await send(client, messages);
    expect(first.content.map((block) => block.type)).toEqual([
      "thinking",
      "redacted_thinking",
      "tool_use",
    ]);
    messages.push({ role: "assistant", content: first.content as ContentBlockParam[] });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_r1", content: "export const a = 1;" }],
    });
    await expect(send(client, messages)).resolves.toBeDefined();
    // Filtered out of the turn: the redacted block held the place in the chain.
    const filtered = [
      messages[0]!,
      {
        role: "assistant" as const,
        content: (first.content as ContentBlockParam[]).filter(
          (b) => b.type !== "redacted_thinking",
        ),
      },
      messages[2]!,
    ];
    const later = await send(client, messages);
    const withLater = [
      ...filtered,
      { role: "assistant" as const, content: later.content as ContentBlockParam[] },
      { role: "user" as const, content: "And now?" },
    ];
    expect(await rejection(send(client, withLater))).toMatchObject({
      status: 400,
      message: `${BOUND("messages.3.content.0")}${NEEDS_BETA} A thinking block before it was left out or moved.`,
    });
    // Sent back whole, the same turn is accepted.
    await expect(
      send(client, [
        ...messages,
        { role: "assistant", content: later.content as ContentBlockParam[] },
        { role: "user", content: "And now?" },
      ]),
    ).resolves.toBeDefined();
    // Tampered data is a 400 even with drop_block.
    const tampered = structuredClone(messages);
    (contentOf(tampered[1])[1] as { data: string }).data += "x";
    expect(await rejection(sendBeta(client, tampered))).toEqual({
      status: 400,
      type: "invalid_request_error",
      message: "messages.1.content.1: Invalid `data` in `redacted_thinking` block",
    });
  });

  it("rejects a tampered thinking block even with drop_block", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    (contentOf(messages[3])[0] as { thinking: string }).thinking = "Something else.";
    expect(await rejection(sendBeta(client, messages))).toEqual({
      status: 400,
      type: "invalid_request_error",
      message: "messages.3.content.0: Invalid `signature` in `thinking` block",
    });
  });

  it("rejects block_binding without the beta header", async () => {
    const client = sdk();
    const rejected = await rejection(
      client.messages.create({
        model: MODEL,
        max_tokens: 64,
        thinking: DROP as unknown as typeof ADAPTIVE,
        messages: [{ role: "user", content: "Hi." }],
      }),
    );
    expect(rejected).toMatchObject({ status: 400, type: "invalid_request_error" });
    expect(rejected.message).toContain(THINKING_BINDING_BETA);
  });

  it("rejects continuing a tool use without the assistant turn's thinking", async () => {
    const client = sdk();
    const messages: MessageParam[] = [];
    await agentLoop(client, messages, "Read src/a.ts.");
    const loop = messages.slice(0, 3);
    const stripped: MessageParam[] = [
      loop[0]!,
      withContent(loop[1], contentOf(loop[1]).slice(1)),
      loop[2]!,
    ];
    expect(await rejection(send(client, stripped))).toEqual({
      status: 400,
      type: "invalid_request_error",
      message: expect.stringMatching(
        /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
      ),
    });
    // Without thinking the same request is fine; so is the loop with its thinking.
    await expect(send(client, stripped, { thinking: { type: "disabled" } })).resolves.toBeDefined();
    await expect(send(client, loop)).resolves.toBeDefined();
  });

  it("runs the same prefix check on count_tokens", async () => {
    const client = sdk();
    const messages = await grownConversation(client);
    (contentOf(messages[2])[0] as { content: string }).content = "[read src/a.ts]";
    expect(
      await rejection(
        client.messages.countTokens({
          model: MODEL,
          system: SYSTEM,
          tools: TOOLS,
          thinking: ADAPTIVE,
          messages,
        }),
      ),
    ).toMatchObject({
      status: 400,
      message: expect.stringContaining(BOUND("messages.3.content.0")),
    });
  });

  it("thinks without a thinking parameter when started with thinkByDefault", async () => {
    const thinker = await MessagesApiServer.start({ thinkByDefault: true });
    try {
      const client = new Anthropic({ baseURL: thinker.url, apiKey: API_KEY, maxRetries: 0 });
      const reply = await client.messages.create({
        model: MODEL,
        max_tokens: 64,
        messages: [{ role: "user", content: "Hi." }],
      });
      expect(reply.content.map((block) => block.type)).toEqual(["thinking", "text"]);
      const off = await client.messages.create({
        model: MODEL,
        max_tokens: 64,
        thinking: { type: "disabled" },
        messages: [{ role: "user", content: "Hi." }],
      });
      expect(off.content.map((block) => block.type)).toEqual(["text"]);
    } finally {
      await thinker.close();
    }
  });

  it("checks only requests that set the field on an older account (opt-in), reporting the rest", async () => {
    const older = await MessagesApiServer.start({
      preservedThinking: "opt-in",
      onMessages: offlineClaude(),
    });
    try {
      const client = new Anthropic({ baseURL: older.url, apiKey: API_KEY, maxRetries: 0 });
      const messages = await grownConversation(client);
      (contentOf(messages[2])[0] as { content: string }).content = "[read src/a.ts]";
      await expect(send(client, messages)).resolves.toBeDefined();
      const reported = await sendBeta(client, messages, { thinking: ADAPTIVE });
      expect(reported.input_transformations?.map((entry) => [entry.type, entry.path])).toEqual([
        ["thinking_mismatch_allowed", "messages.3.content.0"],
        ["thinking_mismatch_allowed", "messages.5.content.0"],
        ["thinking_mismatch_allowed", "messages.7.content.0"],
        ["thinking_mismatch_allowed", "messages.9.content.0"],
      ]);
      expect(
        await rejection(
          sendBeta(client, messages, {
            thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "error" } },
          }),
        ),
      ).toMatchObject({
        status: 400,
        message: expect.stringContaining(BOUND("messages.3.content.0")),
      });
    } finally {
      await older.close();
    }
  });
});
