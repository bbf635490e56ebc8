import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CLEARED_TOOL_RESULT,
  CONTEXT_MANAGEMENT_BETA,
} from "../../examples/support/context-editing.js";
import { CLEAR_AT_BETA } from "../../examples/support/system-messages.js";
import { THINKING_BINDING_BETA } from "../../examples/support/thinking-rules.js";
import { COMPACTION_BETA } from "../../src/testing/anthropic-rules/compaction.js";
import { READ_FILE_TOOL, REMEMBER_TOOL } from "../support/coding-agent.js";
import { MessagesApiServer } from "../support/messages-api-server.js";

/**
 * The rules of on-demand compaction, mid-conversation system messages, context editing and
 * cache diagnostics, as the loopback Messages API speaks them (sources at the top of
 * `src/testing/anthropic-rules/compaction.ts` and of `examples/support/system-messages.ts`,
 * `context-editing.ts` and `cache-diagnostics.ts`), through the real SDK. The server plays a model with preserved
 * thinking: a signed thinking block leads every reply, and thinking sent back is checked.
 */

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] } & Record<string, unknown>;
type Body = Record<string, unknown> & { messages: Message[] };
type Reply = {
  id: string;
  content: Block[];
  stop_reason: string;
  usage: Record<string, unknown> & { iterations?: Block[] };
  input_transformations?: unknown[];
  context_management?: { applied_edits: Block[] };
  diagnostics?: unknown;
};

const SYSTEM = "You fix failing tests.";
const TOOLS = [READ_FILE_TOOL, REMEMBER_TOOL];
/** Thinking on, and a failing block refused with a 400 (so a pass is a real pass). */
const THINKING = { type: "adaptive", block_binding: { prefix_mismatch_behavior: "error" } };
const BETAS = [COMPACTION_BETA, THINKING_BINDING_BETA];

let server: MessagesApiServer;
let client: Anthropic;

beforeAll(async () => {
  server = await MessagesApiServer.start({ thinkByDefault: true, preservedThinking: "enforced" });
  client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setDefault("messages", { type: "message", text: "ok" });
  server.setDefault("compaction", { type: "compaction" });
});

/** Sends a request through the beta API; `betas` default to compaction and thinking binding. */
async function send(body: Record<string, unknown>, betas: string[] = BETAS): Promise<Reply> {
  const params = { model: "claude-fable-5-1", max_tokens: 4096, ...body, betas };
  return (await client.beta.messages.create(params as never)) as unknown as Reply;
}

/** The API error a request fails with. */
async function refusal(body: Record<string, unknown>, betas?: string[]): Promise<APIError> {
  try {
    await send(body, betas);
  } catch (error) {
    if (error instanceof APIError) return error;
    throw error;
  }
  throw new Error("the request was accepted");
}

const user = (content: string | Block[]): Message => ({ role: "user", content });
const assistant = (content: Block[]): Message => ({ role: "assistant", content });

/** A request body on the conversation's system prompt, tools and thinking. */
const request = (messages: Message[], extra: Record<string, unknown> = {}): Body => ({
  system: SYSTEM,
  tools: TOOLS,
  thinking: THINKING,
  messages,
  ...extra,
});

/** Has the model answer `messages` and returns them with its reply appended. */
async function advance(messages: Message[], reply: Block[] | string = "ok"): Promise<Message[]> {
  server.queue(
    "messages",
    typeof reply === "string"
      ? { type: "message", text: reply }
      : { type: "message", content: reply },
  );
  const response = await send(request(messages));
  return [...messages, assistant(response.content)];
}

/** Two turns, each answered with signed thinking: user, assistant, user, assistant. */
async function twoTurns(): Promise<Message[]> {
  let history = await advance([user("Fix the failing test in src/a.ts.")], "Reading it.");
  history = await advance([...history, user("Now run the suite.")], "All green.");
  return history;
}

const thinkingOf = (message: Message) =>
  (message.content as Block[]).filter((block) => block["type"] === "thinking");

describe("on-demand compaction: the request and its reply", () => {
  it("returns one signed compaction block, stop_reason compaction, top-level usage 0 and the cost in usage.iterations", async () => {
    const history = await twoTurns();
    const response = await send(request(history, { compaction: { type: "summarize" } }));
    expect(response.stop_reason).toBe("compaction");
    expect(response.content).toHaveLength(1);
    const [block] = response.content;
    expect(block).toEqual({
      type: "compaction",
      content: expect.stringContaining("Fix the failing test"),
      signature: expect.any(String),
    });
    expect(response.usage["input_tokens"]).toBe(0);
    expect(response.usage["output_tokens"]).toBe(0);
    expect(response.usage.iterations).toEqual([
      expect.objectContaining({
        type: "compaction",
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
      }),
    ]);
    const [iteration] = response.usage.iterations!;
    expect(iteration!["input_tokens"]).toBeGreaterThan(0);
    expect(iteration!["output_tokens"]).toBeGreaterThan(0);
    // No thinking in the summary's reply, and no reply after it.
    expect(response.content.some((part) => part["type"] === "thinking")).toBe(false);
  });

  it("passes instructions to the summarizer", async () => {
    const history = await twoTurns();
    const response = await send(
      request(history, {
        compaction: { type: "summarize", instructions: "Keep every file path." },
      }),
    );
    expect(response.content[0]!["content"]).toContain("Keep every file path.");
  });

  it("refuses the documented misuses of the compaction parameter", async () => {
    const history = await twoTurns();
    const cases: [Record<string, unknown>, RegExp, string | null][] = [
      [{ compaction: { type: "replace" } }, /compaction\.type/, null],
      [
        { compaction: { type: "summarize", instructions: "x".repeat(16_385) } },
        /at most 16384/,
        null,
      ],
      [
        {
          compaction: { type: "summarize" },
          context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
        },
        /cannot be combined with `context_management`/,
        null,
      ],
      [{ compaction: { type: "summarize" }, stop_sequences: ["END"] }, /stop_sequences/, null],
      [{ compaction: { type: "summarize" }, tool_choice: { type: "any" } }, /tool_choice/, null],
      [
        {
          compaction: { type: "summarize" },
          output_config: { format: { type: "json_schema", schema: { type: "object" } } },
        },
        /output_config\.format/,
        null,
      ],
    ];
    for (const [extra, message, code] of cases) {
      const error = await refusal(request(history, extra));
      expect(error.status).toBe(400);
      expect(error.message).toMatch(message);
      expect(error.errorCode).toBe(code);
    }
  });

  it("needs the beta header on the compaction request", async () => {
    const error = await refusal(request(await twoTurns(), { compaction: { type: "summarize" } }), [
      THINKING_BINDING_BETA,
    ]);
    expect(error.status).toBe(400);
    expect(error.message).toContain(`requires anthropic-beta: ${COMPACTION_BETA}`);
  });

  it("refuses an empty request (compaction_nothing_to_summarize) and an open tool call (compaction_incomplete_turn)", async () => {
    const empty = await refusal(request([], { compaction: { type: "summarize" } }));
    expect([empty.status, empty.errorCode]).toEqual([400, "compaction_nothing_to_summarize"]);

    const open = await advance(
      [user("Read src/a.ts.")],
      [{ type: "tool_use", id: "toolu_open", name: "read_file", input: { path: "src/a.ts" } }],
    );
    const incomplete = await refusal(request(open, { compaction: { type: "summarize" } }));
    expect([incomplete.status, incomplete.errorCode]).toEqual([400, "compaction_incomplete_turn"]);
    expect(incomplete.message).toMatch(/tool call with no result/);
  });

  it("answers a missing summary with a 200, empty content and the summarization call's stop_reason", async () => {
    const history = await twoTurns();
    for (const stopReason of [
      "max_tokens",
      "model_context_window_exceeded",
      "tool_use",
      "refusal",
      "end_turn",
    ]) {
      server.queue("compaction", { type: "compaction", stopReason });
      const response = await send(request(history, { compaction: { type: "summarize" } }));
      expect(response.stop_reason).toBe(stopReason);
      expect(response.content).toEqual([]);
      expect(response.usage.iterations?.[0]?.["type"]).toBe("compaction");
    }
  });

  it("fails with 529 compaction_unavailable when told to", async () => {
    server.queue("compaction", {
      type: "error",
      status: 529,
      errorType: "overloaded_error",
      errorCode: "compaction_unavailable",
      message: "Compaction is temporarily unavailable.",
    });
    const error = await refusal(request(await twoTurns(), { compaction: { type: "summarize" } }));
    expect([error.status, error.errorCode]).toEqual([529, "compaction_unavailable"]);
  });
});

/** Compacts the first `summarized` messages of `history`; returns the block's message. */
async function compact(
  history: Message[],
  summarized: number,
  extra: Record<string, unknown> = {},
) {
  const response = await send(
    request(history.slice(0, summarized), { compaction: { type: "summarize" }, ...extra }),
  );
  expect(response.stop_reason).toBe("compaction");
  return assistant(response.content);
}

describe("on-demand compaction: the block sent back", () => {
  it("keeps the thinking of the kept turns valid: the block continues the summarized prefix", async () => {
    const history = await twoTurns();
    const block = await compact(history, 2);
    const kept = history.slice(2);
    expect(thinkingOf(kept[1]!)).toHaveLength(1);
    const response = await send(request([block, ...kept, user("And the docs?")]));
    expect(response.input_transformations).toEqual([]);
    // Thinking produced after the block is bound to it, and stays valid.
    const after = [block, ...kept, user("And the docs?"), assistant(response.content)];
    const next = await send(request([...after, user("Thanks.")]));
    expect(next.input_transformations).toEqual([]);
  });

  it("keeps it valid with the kept turns starting with an assistant message (a tool loop cut before a call)", async () => {
    let history = await advance(
      [user("Read both files.")],
      [{ type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } }],
    );
    history.push(user([{ type: "tool_result", tool_use_id: "toolu_a", content: "a" }]));
    history = await advance(history, [
      { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "b.ts" } },
    ]);
    history.push(user([{ type: "tool_result", tool_use_id: "toolu_b", content: "b" }]));
    // Summarize up to the first result; keep the second call, its result and the reply to come.
    const block = await compact(history, 3);
    const response = await send(request([block, ...history.slice(3)]));
    expect(response.input_transformations).toEqual([]);
  });

  it("invalidates the kept thinking when the kept part starts with a system message, or system changes", async () => {
    let history = await advance([user("Fix it.")], "On it.");
    history.push(user("Go on."), { role: "system", content: "Be brief." });
    history = await advance(history, "Done.");
    // The first kept message is a system message: the API merges it into the summarized part.
    const merged = await compact(history, 3);
    const error = await refusal(request([merged, ...history.slice(3), user("Next?")]));
    expect(error.message).toMatch(/messages\.2\.content\.0: .*bound to a different conversation/);

    // A compaction request with another system prompt: the kept thinking no longer holds.
    const plain = await twoTurns();
    const other = await compact(plain, 2, { system: "Another prompt." });
    const changed = await refusal(request([other, ...plain.slice(2), user("Next?")]));
    expect(changed.message).toMatch(/bound to a different conversation/);
  });

  it("compacts again: the new block summarizes the old one and what follows it", async () => {
    const history = await twoTurns();
    const first = await compact(history, 2);
    let conversation = [first, ...history.slice(2), user("Third.")];
    conversation = await advance(conversation, "Third done.");
    conversation.push(user("Fourth."));
    conversation = await advance(conversation, "Fourth done.");
    // Summarize the old block and the next two turns; keep the last one.
    const second = await compact(conversation, 5);
    const response = await send(request([second, ...conversation.slice(5), user("Fifth.")]));
    expect(response.input_transformations).toEqual([]);
  });

  it("refuses summarized messages left in front of the block (compaction_block_misplaced)", async () => {
    const history = await twoTurns();
    const block = await compact(history, 2);
    const error = await refusal(request([...history.slice(0, 2), block, ...history.slice(2)]));
    expect([error.status, error.errorCode]).toEqual([400, "compaction_block_misplaced"]);
  });

  it("refuses a changed signature or content, two blocks, and fields the API did not return", async () => {
    const history = await twoTurns();
    const block = (await compact(history, 2)).content as Block[];
    const withBlock = (changed: Block) => request([assistant([changed]), ...history.slice(2)]);
    const signature = await refusal(withBlock({ ...block[0], signature: "forged" }));
    expect([signature.status, signature.errorCode]).toEqual([400, "compaction_signature_invalid"]);
    const content = await refusal(withBlock({ ...block[0], content: "Another summary." }));
    expect([content.status, content.errorCode]).toEqual([400, "compaction_content_mismatch"]);
    const twice = await refusal(request([assistant([block[0]!, block[0]!]), ...history.slice(2)]));
    expect([twice.status, twice.errorCode]).toEqual([400, "compaction_block_ambiguous"]);
    const extra = await refusal(withBlock({ ...block[0], citations: null }));
    expect(extra.message).toContain(
      "messages.0.content.0.compaction.citations: Extra inputs are not permitted",
    );
  });

  it("accepts the block as the first block of the first message, and needs the beta header on every request that carries it", async () => {
    const history = await twoTurns();
    const [block] = (await compact(history, 2)).content as Block[];
    const [keptUser, keptReply] = history.slice(2) as [Message, Message];
    const merged = user([block!, { type: "text", text: keptUser.content as string }]);
    // The merged form is accepted (no kept thinking: the kept user message is now the block's).
    const response = await send(request([merged, keptReply, user("Next.")]));
    expect(response.stop_reason).toBe("end_turn");
    const error = await refusal(request([assistant([block!]), ...history.slice(2)]), [
      THINKING_BINDING_BETA,
    ]);
    expect(error.message).toContain("'compaction' is not one of the expected content block types");
  });
});

describe("mid-conversation system messages", () => {
  it("are accepted after a user turn, before a reply or at the end, and bind later thinking like any message", async () => {
    let history = await advance([user("Fix it."), { role: "system", content: "Be brief." }], "Ok.");
    history.push(user("Go on."), {
      role: "system",
      content: [{ type: "text", text: "Use the tools." }],
    });
    history = await advance(history, "Going on.");
    const response = await send(request([...history, user("Next.")]));
    expect(response.input_transformations).toEqual([]);
    // Editing an earlier system message is an edit: the thinking after it no longer holds.
    const edited = history.map((message, index) =>
      index === 1 ? { role: "system", content: "Be verbose." } : message,
    );
    const error = await refusal(request([...edited, user("Next.")]));
    expect(error.message).toMatch(/messages\.2\.content\.0: .*bound to a different conversation/);
  });

  it("refuses one first, between a tool call and its result, or followed by a user message", async () => {
    const first = await refusal(request([{ role: "system", content: "Hi." }, user("Fix it.")]));
    expect(first.message).toMatch(/cannot be the first message/);
    const open = await advance(
      [user("Read it.")],
      [{ type: "tool_use", id: "toolu_s", name: "read_file", input: { path: "a" } }],
    );
    const between = await refusal(
      request([
        ...open,
        { role: "system", content: "Hurry." },
        user([{ type: "tool_result", tool_use_id: "toolu_s", content: "a" }]),
      ]),
    );
    expect(between.message).toMatch(/must follow a `user` turn/);
    const beforeUser = await refusal(
      request([user("Fix it."), { role: "system", content: "Hi." }, user("Again.")]),
    );
    expect(beforeUser.message).toMatch(/precede an `assistant` turn/);
    // An effort-only message is accepted anywhere, first included.
    const response = await send(
      request([{ role: "system", output_config: { effort: "low" } } as never, user("Fix it.")]),
    );
    expect(response.stop_reason).toBe("end_turn");
  });

  it("turn-scoped ones need their beta, carry text only, and stop counting once a user message follows", async () => {
    const scoped = { role: "system", clear_at: "next_user_message", content: "x".repeat(400) };
    const noBeta = await refusal(request([user("Fix it."), scoped]));
    expect(noBeta.message).toContain("messages.1.clear_at: Extra inputs are not permitted");
    const betas = [...BETAS, CLEAR_AT_BETA];
    const notText = await refusal(
      request([
        user("Fix it."),
        {
          ...scoped,
          content: [{ type: "tool_removal", tool: { type: "tool_reference", name: "remember" } }],
        },
      ]),
      betas,
    );
    expect(notText.message).toMatch(/supports text blocks only/);
    const shown = await send(request([user("Fix it."), scoped]), betas);
    const history = [user("Fix it."), scoped, assistant(shown.content), user("Go on.")];
    const cleared = await send(request(history), betas);
    const without = await send(
      request([user("Fix it."), assistant(shown.content), user("Go on.")]),
      betas,
    ).catch(() => undefined);
    // Without the message the thinking fails; with it, cleared, it counts nothing.
    expect(without).toBeUndefined();
    expect(cleared.usage["input_tokens"]).toBeLessThan(shown.usage["input_tokens"] as number);
  });
});

/** A tool loop of `count` calls to read_file and one to remember, each with its result. */
async function toolLoop(count: number): Promise<Message[]> {
  let history: Message[] = [user("Read every file and note what matters.")];
  for (let step = 0; step <= count; step += 1) {
    const name = step === 0 ? "remember" : "read_file";
    const id = `toolu_${step}`;
    history = await advance(history, [{ type: "tool_use", id, name, input: { path: `f${step}` } }]);
    history.push(
      user([{ type: "tool_result", tool_use_id: id, content: `contents of f${step} `.repeat(40) }]),
    );
  }
  return history;
}

describe("context editing", () => {
  const edits = (...list: Block[]) => ({ context_management: { edits: list } });
  const betas = [...BETAS, CONTEXT_MANAGEMENT_BETA];

  it("clears old tool results server-side, reports applied_edits, and leaves the thinking valid", async () => {
    const history = await toolLoop(6);
    const full = await send(request(history), betas);
    const cleared = await send(
      request(
        history,
        edits({
          type: "clear_tool_uses_20250919",
          trigger: { type: "tool_uses", value: 2 },
          keep: { type: "tool_uses", value: 2 },
          exclude_tools: ["remember"],
          clear_tool_inputs: true,
        }),
      ),
      betas,
    );
    expect(full.context_management).toBeUndefined();
    expect(cleared.context_management?.applied_edits).toEqual([
      {
        type: "clear_tool_uses_20250919",
        cleared_tool_uses: 4,
        cleared_input_tokens: expect.any(Number),
      },
    ]);
    const freed = cleared.context_management!.applied_edits[0]!["cleared_input_tokens"] as number;
    expect(freed).toBeGreaterThan(0);
    expect(cleared.usage["input_tokens"]).toBe((full.usage["input_tokens"] as number) - freed);
    // The edited view is the server's: the history sent back next time is the full one.
    expect(JSON.stringify(history)).not.toContain(CLEARED_TOOL_RESULT);
    expect(cleared.input_transformations).toEqual([]);
  });

  it("applies nothing below its trigger or clear_at_least, and clears thinking turns when told", async () => {
    const history = await toolLoop(4);
    const quiet = await send(request(history, edits({ type: "clear_tool_uses_20250919" })), betas);
    expect(quiet.context_management?.applied_edits).toEqual([]);
    const tooLittle = await send(
      request(
        history,
        edits({
          type: "clear_tool_uses_20250919",
          trigger: { type: "tool_uses", value: 1 },
          clear_at_least: { type: "input_tokens", value: 1_000_000 },
        }),
      ),
      betas,
    );
    expect(tooLittle.context_management?.applied_edits).toEqual([]);
    const thinking = await send(
      request(
        history,
        edits(
          { type: "clear_thinking_20251015", keep: { type: "thinking_turns", value: 1 } },
          { type: "clear_tool_uses_20250919", trigger: { type: "tool_uses", value: 1 } },
        ),
      ),
      betas,
    );
    expect(thinking.context_management?.applied_edits.map((edit) => edit["type"])).toEqual([
      "clear_thinking_20251015",
      "clear_tool_uses_20250919",
    ]);
    expect(thinking.context_management?.applied_edits[0]).toMatchObject({
      cleared_thinking_turns: 4,
    });
  });

  it("needs its beta and clear_thinking first", async () => {
    const history = await twoTurns();
    const noBeta = await refusal(request(history, edits({ type: "clear_tool_uses_20250919" })));
    expect(noBeta.message).toMatch(/context_management: Extra inputs are not permitted/);
    const order = await refusal(
      request(
        history,
        edits({ type: "clear_tool_uses_20250919" }, { type: "clear_thinking_20251015" }),
      ),
      betas,
    );
    expect(order.message).toMatch(/must be the first edit/);
  });
});

describe("cache diagnostics", () => {
  it("reports nothing on a first turn or an append, and names the first divergence otherwise", async () => {
    const history = [user("Fix it.")];
    const first = await send(request(history, { diagnostics: { previous_message_id: null } }));
    expect(first.diagnostics).toBeNull();
    const appended = [...history, assistant(first.content), user("Go on.")];
    const second = await send(
      request(appended, { diagnostics: { previous_message_id: first.id } }),
    );
    expect(second.diagnostics).toBeNull();

    const edited = [user("Fix it, please."), ...appended.slice(1)];
    const changed = await send(
      request(edited, { diagnostics: { previous_message_id: second.id } }),
    ).catch((error: unknown) => error);
    // Editing the first message breaks the thinking after it: drop it to see the diagnosis.
    expect(changed).toBeInstanceOf(APIError);
    const stripped = [edited[0]!, assistant([{ type: "text", text: "Ok." }]), edited[2]!];
    const diagnosed = await send(
      request(stripped, { diagnostics: { previous_message_id: second.id } }),
    );
    expect(diagnosed.diagnostics).toEqual({
      cache_miss_reason: {
        type: "messages_changed",
        cache_missed_input_tokens: expect.any(Number),
      },
    });

    const system = await send(
      request(appended, { system: "Other.", diagnostics: { previous_message_id: second.id } }),
    ).catch(() => undefined);
    expect(system).toBeUndefined(); // the thinking check sees the new system prompt too
    const tools = await send({
      ...request([user("Fix it.")], { diagnostics: { previous_message_id: first.id } }),
      tools: [TOOLS[0]],
    });
    expect(tools.diagnostics).toMatchObject({ cache_miss_reason: { type: "tools_changed" } });
    const unknown = await send(
      request(history, { diagnostics: { previous_message_id: "msg_unknown" } }),
    );
    expect(unknown.diagnostics).toEqual({
      cache_miss_reason: { type: "previous_message_not_found" },
    });
    const none = await send(request(history));
    expect(none).not.toHaveProperty("diagnostics");
  });
});
