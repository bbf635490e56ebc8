import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRequest } from "../../examples/support/loopback-checks.js";
import { messageParts } from "../../examples/support/loopback-replies.js";
import { THINKING_BINDING_BETA as BETA } from "../../src/testing/anthropic-rules/prefix-check.js";
import { signReplyContent } from "../../src/testing/anthropic-rules/thinking.js";
import { AnthropicStandIn, StandInApiError } from "../../src/testing/index.js";

// One set of Messages API rules (src/testing/anthropic-rules) runs behind two faces: the
// AnthropicStandIn of /testing (a client double) and the loopback HTTP server of
// examples/support (its request checks and replies, here without the socket). Each face reads
// the betas, orders the checks, counts the prompt and signs the reply on its own, so the two are
// compared by what they answer: the same request, the same 400 in the same words, or the same
// blocks dropped and reported, the same input tokens and the same signed thinking in the reply.
// (Both answer 400 for broken pairing; the stand-in also for two messages of one role in a row,
// which the loopback, as the API, reads as one turn: the conversations here keep both rules.)

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] };
type Body = { system: string; tools: Block[]; messages: Message[]; thinking?: Block };

const EDITS = [
  "none",
  "edit_first_user",
  "drop_middle_thinking",
  "drop_leading_thinking",
  "change_system",
  "reorder_tools",
  "add_tool",
  "tamper_thinking",
  "strip_last_thinking",
] as const;

const scenario = fc.record({
  turns: fc.array(fc.boolean(), { minLength: 2, maxLength: 4 }), // true: the turn calls a tool
  edit: fc.constantFrom(...EDITS),
  behavior: fc.constantFrom(undefined, "error", "drop_block"),
  beta: fc.boolean(),
  mode: fc.constantFrom("enforced", "opt-in", "off"),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const thinkingOf = (message: Message | undefined) =>
  Array.isArray(message?.content)
    ? message.content.filter((block) => block["type"] === "thinking")
    : [];

/** A conversation whose thinking the model signed, then edited as the scenario says. */
function request({ turns, edit, behavior }: Scenario): Body {
  const tools: Block[] = [
    { name: "read", input_schema: { type: "object" } },
    { name: "write", input_schema: { type: "object" } },
  ];
  const body: Body = {
    system: "You are a careful agent.",
    tools,
    messages: [],
    thinking: { type: "enabled", budget_tokens: 1024 },
  };
  turns.forEach((callsTool, turn) => {
    // The next task follows a tool's result in the same user message: roles alternate.
    const last = body.messages.at(-1);
    if (last?.role === "user" && Array.isArray(last.content)) {
      last.content.push({ type: "text", text: `task ${turn}` });
    } else {
      body.messages.push({ role: "user", content: `task ${turn}` });
    }
    const reply: Block[] = [{ type: "thinking", thinking: `plan ${turn}` }];
    reply.push(
      callsTool
        ? { type: "tool_use", id: `toolu_${turn}`, name: "read", input: { turn } }
        : { type: "text", text: `done ${turn}` },
    );
    body.messages.push({ role: "assistant", content: signReplyContent(body, reply) });
    if (callsTool)
      body.messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: "ok" }],
      });
  });
  const assistants = body.messages.filter((message) => message.role === "assistant");
  const drop = (message: Message | undefined) => {
    if (message !== undefined && Array.isArray(message.content))
      message.content = message.content.filter((block) => block["type"] !== "thinking");
  };
  if (edit === "edit_first_user") body.messages[0] = { role: "user", content: "task 0, edited" };
  if (edit === "drop_middle_thinking") drop(assistants[1]);
  if (edit === "drop_leading_thinking") drop(assistants[0]);
  if (edit === "change_system") body.system = "You are a different agent.";
  if (edit === "reorder_tools") body.tools = [...tools].reverse();
  if (edit === "add_tool")
    body.tools = [...tools, { name: "delete", input_schema: { type: "object" } }];
  if (edit === "tamper_thinking") {
    const [block] = thinkingOf(assistants[0]);
    if (block !== undefined) block["thinking"] = `${String(block["thinking"])}!`;
  }
  if (edit === "strip_last_thinking") drop(assistants.at(-1));
  if (body.messages.at(-1)?.role === "assistant")
    body.messages.push({ role: "user", content: "next" });
  if (behavior !== undefined)
    body.thinking = { ...body.thinking, block_binding: { prefix_mismatch_behavior: behavior } };
  return body;
}

/** What a face answers: the error, or what the reply carries that the rules decide. */
type Answer =
  | { ok: false; status: number; message: string }
  | { ok: true; transformations: unknown; inputTokens: unknown; thinking: unknown };

const NEXT_THINKING = "Next, the write.";
const headersOf = (beta: boolean) => (beta ? { "anthropic-beta": BETA } : {});

async function standInAnswer(body: Body, { beta, mode }: Scenario): Promise<Answer> {
  const client = new AnthropicStandIn({ preservedThinking: mode }).reply({
    thinking: NEXT_THINKING,
    text: "Done.",
  });
  try {
    const message = (await client.messages.create(
      { model: "claude-test", max_tokens: 1024, ...body } as never,
      { headers: headersOf(beta) },
    )) as unknown as Record<string, unknown> & { content: Block[]; usage: Block };
    return {
      ok: true,
      transformations: message["input_transformations"],
      inputTokens: message.usage["input_tokens"],
      thinking: message.content.filter((block) => block["type"] === "thinking"),
    };
  } catch (error) {
    if (!(error instanceof StandInApiError)) throw error;
    return { ok: false, status: error.status, message: error.apiMessage };
  }
}

function loopbackAnswer(body: Body, { beta, mode }: Scenario): Answer {
  const recorded = {
    endpoint: "messages" as const,
    method: "POST",
    path: "/v1/messages",
    headers: headersOf(beta) as Record<string, string>,
    body: { model: "claude-test", max_tokens: 1024, ...body },
    outcome: Promise.resolve("answered" as const),
  };
  const checked = checkRequest(recorded, "messages", { preservedThinking: mode });
  if ("refusal" in checked) {
    const { refusal } = checked;
    if (refusal.type !== "error") throw new Error(`unexpected refusal ${refusal.type}`);
    return { ok: false, status: refusal.status, message: refusal.message ?? "" };
  }
  const reply = { type: "message" as const, thinking: NEXT_THINKING, text: "Done." };
  const parts = messageParts(reply, recorded.body, checked.thinking, checked.view);
  return {
    ok: true,
    transformations: checked.thinking.inputTransformations,
    inputTokens: parts.usage["input_tokens"],
    thinking: parts.content.filter((block) => block["type"] === "thinking"),
  };
}

describe("the stand-in and the loopback server, one set of rules", () => {
  it("answer every conversation and edit alike: the same 400, or the same drops, tokens and signed reply", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (value) => {
        const body = request(value);
        const standIn = await standInAnswer(structuredClone(body), value);
        expect(standIn).toEqual(loopbackAnswer(structuredClone(body), value));
      }),
      { numRuns: 300, seed: 25 },
    );
  });

  it("refuse an edit before signed thinking and accept the untouched request (the comparison can fail)", async () => {
    const edited: Scenario = {
      turns: [false, false],
      edit: "edit_first_user",
      behavior: undefined,
      beta: true,
      mode: "enforced",
    };
    const refused = await standInAnswer(request(edited), edited);
    expect(refused).toMatchObject({ ok: false, status: 400 });
    expect(loopbackAnswer(request(edited), edited)).toEqual(refused);
    const untouched = { ...edited, edit: "none" as const };
    const accepted = await standInAnswer(request(untouched), untouched);
    expect(accepted).toMatchObject({ ok: true, transformations: [] });
    expect((accepted as { thinking: Block[] }).thinking).toEqual([
      expect.objectContaining({ type: "thinking", thinking: NEXT_THINKING }),
    ]);
    expect(loopbackAnswer(request(untouched), untouched)).toEqual(accepted);
  });
});
