import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { AnthropicLlmClient } from "../anthropic/llm-client.js";
import { ValidationError } from "../core/errors.js";
import { StandInApiError } from "./anthropic-rules/api-error.js";
import { AnthropicStandIn } from "./anthropic-stand-in.js";

const model = "claude-sonnet-5-5";
const ask = (text: string): MessageParam => ({ role: "user", content: text });
const THINKING = "thinking-binding-controls-2026-08-01";

/** One request of `messages` with adaptive thinking, for one token. */
const withThinking = (client: AnthropicStandIn, messages: MessageParam[]) =>
  client.messages.create({ model, max_tokens: 1, thinking: { type: "adaptive" }, messages });

async function rejection(promise: Promise<unknown>): Promise<StandInApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof StandInApiError)) throw new Error(`expected an API error, got ${error}`);
  return error;
}

describe("AnthropicStandIn replies", () => {
  it("answers scripted text and tool calls, with usage from its own estimate, and records the request", async () => {
    const client = new AnthropicStandIn()
      .reply({ text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] })
      .reply("Done.");
    const first = await client.messages.create({
      model,
      max_tokens: 512,
      messages: [ask("Fix a.ts")],
    });
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content.map((block) => block.type)).toEqual(["text", "tool_use"]);
    const call = first.content[1];
    if (call?.type !== "tool_use") throw new Error("no tool call");
    expect(call).toMatchObject({
      id: "toolu_standin_1",
      name: "read_file",
      input: { path: "a.ts" },
    });
    expect(first.usage.input_tokens).toBe(
      Math.ceil(JSON.stringify({ messages: [ask("Fix a.ts")] }).length / 4),
    );
    const second = await client.messages.create({
      model,
      max_tokens: 512,
      messages: [
        ask("Fix a.ts"),
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "x" }] },
      ],
    });
    expect(second.content).toEqual([{ type: "text", text: "Done.", citations: null }]);
    expect(second.usage.input_tokens).toBeGreaterThan(first.usage.input_tokens);
    expect(client.callCount).toBe(2);
    expect(client.lastRequest?.body["model"]).toBe(model);
  });

  it("can be passed where the SDK client goes: AnthropicLlmClient summarizes through it", async () => {
    const client = new AnthropicStandIn().reply("Goal: fix the build.");
    const llm = new AnthropicLlmClient({ client, model: "claude-haiku-5-5" });
    const reply = await llm.complete({ prompt: "Summarize.", maxTokens: 256 });
    expect(typeof reply === "string" ? reply : reply.text).toBe("Goal: fix the build.");
    expect(client.requests[0]?.body).toMatchObject({ model: "claude-haiku-5-5", max_tokens: 256 });
  });

  it("answers a scripted failure as the SDK's error would be, or with the SDK's own classes", async () => {
    const shaped = await rejection(
      new AnthropicStandIn()
        .fail()
        .messages.create({ model, max_tokens: 1, messages: [ask("hi")] }),
    );
    expect(shaped).toMatchObject({
      status: 529,
      name: "OverloadedError",
      type: "overloaded_error",
    });
    expect(shaped.message).toBe(`529 ${JSON.stringify(shaped.error)}`);
    const sdk = new AnthropicStandIn({
      contextWindow: 10,
      makeError: (status, body, headers) =>
        Anthropic.APIError.generate(status, body, undefined, headers),
    });
    const error = await sdk.messages
      .create({ model, max_tokens: 1, messages: [ask("x".repeat(100))] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as { apiMessage: string }).apiMessage).toMatch(
      /^prompt is too long: \d+ tokens > 10 maximum$/,
    );
  });

  it("counts tokens as it counts a request's input", async () => {
    const client = new AnthropicStandIn();
    const body = { model, messages: [ask("How long is this?")] };
    const count = await client.messages.countTokens(body);
    const reply = await client.messages.create({ ...body, max_tokens: 1 });
    expect(count.input_tokens).toBe(reply.usage.input_tokens);
  });

  it("simulates the prompt cache: a request reads the prefix an earlier one wrote, an edit rewrites from there", async () => {
    const client = new AnthropicStandIn({ promptCache: true });
    const system = "You are a coding agent.";
    const first = [ask("Fix a.ts")];
    const one = await client.messages.create({ model, max_tokens: 1, system, messages: first });
    expect(one.usage).toMatchObject({ input_tokens: 0, cache_read_input_tokens: 0 });
    expect(one.usage.cache_creation_input_tokens).toBe(
      Math.ceil(JSON.stringify({ system, messages: first }).length / 4),
    );
    const second = [...first, { role: "assistant" as const, content: "Done." }, ask("And b.ts")];
    const two = await client.messages.create({ model, max_tokens: 1, system, messages: second });
    const total = Math.ceil(JSON.stringify({ system, messages: second }).length / 4);
    expect(two.usage.cache_read_input_tokens).toBe(one.usage.cache_creation_input_tokens);
    expect(
      (two.usage.cache_read_input_tokens ?? 0) + (two.usage.cache_creation_input_tokens ?? 0),
    ).toBe(total);
    const edited = [ask("Fix a.ts, edited"), ...second.slice(1)];
    const three = await client.messages.create({ model, max_tokens: 1, system, messages: edited });
    expect(three.usage.cache_read_input_tokens).toBe(
      Math.ceil(JSON.stringify({ system, messages: [] }).length / 4),
    );
  });

  it("says it does not stream, and honours an aborted signal", async () => {
    const client = new AnthropicStandIn();
    const body = { model, max_tokens: 1, messages: [ask("hi")] };
    await expect(client.messages.create({ ...body, stream: true } as never)).rejects.toThrow(
      /non-streaming/,
    );
    const aborted = AbortSignal.abort();
    await expect(client.messages.create(body, { signal: aborted })).rejects.toMatchObject({
      name: "APIUserAbortError",
    });
  });

  it("refuses bad options, naming the field", () => {
    expect(() => new AnthropicStandIn({ contextWindow: 0 })).toThrow(/contextWindow/);
    expect(() => new AnthropicStandIn({ preservedThinking: "on" as never })).toThrow(
      ValidationError,
    );
  });
});

describe("AnthropicStandIn rules", () => {
  it("refuses an orphaned tool_result and an unanswered tool_use with the API's 400", async () => {
    const client = new AnthropicStandIn();
    const orphan = await rejection(
      client.messages.create({
        model,
        max_tokens: 1,
        messages: [
          ask("a"),
          { role: "assistant", content: "b" },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "r" }],
          },
        ],
      }),
    );
    expect(orphan).toMatchObject({
      status: 400,
      name: "BadRequestError",
      type: "invalid_request_error",
    });
    expect(orphan.apiMessage).toContain("unexpected `tool_use_id`");
    const unanswered = await rejection(
      client.messages.create({
        model,
        max_tokens: 1,
        messages: [
          ask("a"),
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_y", name: "t", input: {} }],
          },
          ask("c"),
        ],
      }),
    );
    expect(unanswered.apiMessage).toContain("without `tool_result` blocks immediately after");
  });

  it("takes tool_choice none with tools, and refuses a tool_choice without tools (tool-choice.ts)", async () => {
    const client = new AnthropicStandIn();
    const tools = [{ name: "read", input_schema: { type: "object" as const } }];
    const body = { model, max_tokens: 1, messages: [ask("a")] };
    await expect(
      client.messages.create({ ...body, tools, tool_choice: { type: "none" } }),
    ).resolves.toMatchObject({ type: "message" });
    const refused = await rejection(
      client.messages.create({ ...body, tool_choice: { type: "none" } }),
    );
    expect(refused.apiMessage).toBe("tool_choice.none may only be specified while providing tools");
  });

  it("refuses a request above the window with 'prompt is too long'", async () => {
    const client = new AnthropicStandIn({ contextWindow: 1_000 });
    await client.messages.create({ model, max_tokens: 1, messages: [ask("x".repeat(3_000))] });
    const error = await rejection(
      client.messages.create({ model, max_tokens: 1, messages: [ask("x".repeat(5_000))] }),
    );
    expect(error.status).toBe(400);
    expect(error.apiMessage).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
  });

  it("signs thinking and refuses it sent back after an edit before it; drop_block drops it instead", async () => {
    const client = new AnthropicStandIn();
    const first = await withThinking(client, [ask("Plan it.")]);
    expect(first.content[0]).toMatchObject({
      type: "thinking",
      signature: expect.stringMatching(/^sti1\./),
    });
    const kept = [
      ask("Plan it."),
      { role: "assistant" as const, content: first.content },
      ask("Go on."),
    ];
    await withThinking(client, kept);
    const edited = [ask("Plan it, edited."), ...kept.slice(1)];
    const error = await rejection(withThinking(client, edited));
    expect(error.apiMessage).toContain(
      "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.",
    );
    const dropped = await client.beta.messages.create({
      model,
      max_tokens: 1,
      betas: [THINKING],
      thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
      messages: edited,
    } as never);
    expect(
      (dropped as unknown as { input_transformations: unknown[] }).input_transformations,
    ).toEqual([
      { type: "thinking_dropped", path: "messages.1.content.0", reason: "prefix_binding_mismatch" },
    ]);
  });

  it("refuses a tampered signature whatever the request says", async () => {
    const client = new AnthropicStandIn();
    const first = await withThinking(client, [ask("a")]);
    const [block] = first.content;
    if (block?.type !== "thinking") throw new Error("no thinking");
    const tampered = { ...block, thinking: `${block.thinking} (edited)` };
    const error = await rejection(
      client.messages.create({
        model,
        max_tokens: 1,
        messages: [ask("a"), { role: "assistant", content: [tampered] }, ask("b")],
      }),
    );
    expect(error.apiMessage).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
  });

  it("answers on-demand compaction with a signed block; the turns kept after it keep valid thinking", async () => {
    const client = new AnthropicStandIn().compaction("The user wants a.ts fixed.");
    const thinking = { type: "adaptive" } as const;
    const one = await withThinking(client, [ask("Fix a.ts")]);
    const old = [ask("Fix a.ts"), { role: "assistant" as const, content: one.content }];
    const two = await withThinking(client, [...old, ask("And b.ts")]);
    const compacted = await client.beta.messages.create({
      model,
      max_tokens: 1,
      betas: ["compact-2026-09-04"],
      compaction: { type: "summarize" },
      messages: old,
    } as never);
    expect(compacted.stop_reason).toBe("compaction");
    const [block] = compacted.content;
    expect(block).toMatchObject({ type: "compaction", content: "The user wants a.ts fixed." });
    const next = await client.beta.messages.create({
      model,
      max_tokens: 1,
      betas: ["compact-2026-09-04"],
      thinking,
      messages: [
        { role: "assistant", content: [block] },
        ask("And b.ts"),
        { role: "assistant", content: two.content },
        ask("Now c.ts"),
      ],
    } as never);
    expect(next.stop_reason).toBe("end_turn");
    const moved = await rejection(
      client.beta.messages.create({
        model,
        max_tokens: 1,
        betas: ["compact-2026-09-04"],
        messages: [ask("x"), { role: "assistant", content: [block] }, ask("y")],
      } as never),
    );
    expect(moved.errorCode).toBe("compaction_block_misplaced");
  });
});
