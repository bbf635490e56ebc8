import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as loopback from "../../examples/support/thinking-rules.js";
import * as standIn from "../../src/testing/anthropic-rules/thinking.js";

// The preserved-thinking rules live twice: the loopback server's (examples/support, node:crypto)
// and the copy AnthropicStandIn runs in /testing (no Node built-in). Each signs its own blocks,
// so the two are compared by outcome: the same conversation, the same edit, the same verdict
// (the 400's words, or the blocks dropped and reported), whatever the edit.

type Block = Record<string, unknown>;
type Message = { role: string; content: string | Block[] };
type Body = { system: string; tools: Block[]; messages: Message[]; thinking?: Block };

interface Rules {
  sign(body: Body, content: Block[]): Block[];
  judge(body: Body, beta: boolean, mode: "enforced" | "opt-in" | "off"): unknown;
}

const BETA = loopback.THINKING_BINDING_BETA;
const rules: Record<"loopback" | "standIn", Rules> = {
  loopback: {
    sign: (body, content) => loopback.signReplyContent(body, content),
    judge: (body, beta, mode) =>
      loopback.judgeThinking({ body, headers: beta ? { "anthropic-beta": BETA } : {} }, { mode }),
  },
  standIn: {
    sign: (body, content) => standIn.signReplyContent(body, content),
    judge: (body, beta, mode) =>
      standIn.judgeThinking({ body, betas: beta ? [BETA] : [] }, { mode }),
  },
};

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
    ? message.content.filter((block) => block.type === "thinking")
    : [];

/** Builds the conversation with one implementation's signatures, applies the edit, judges it. */
function verdict(impl: Rules, { turns, edit, behavior, beta, mode }: Scenario) {
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
    body.messages.push({ role: "user", content: `task ${turn}` });
    const reply: Block[] = [{ type: "thinking", thinking: `plan ${turn}` }];
    reply.push(
      callsTool
        ? { type: "tool_use", id: `toolu_${turn}`, name: "read", input: { turn } }
        : { type: "text", text: `done ${turn}` },
    );
    body.messages.push({ role: "assistant", content: impl.sign(structuredClone(body), reply) });
    if (callsTool)
      body.messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: "ok" }],
      });
  });
  const assistants = body.messages.filter((message) => message.role === "assistant");
  const drop = (message: Message | undefined) => {
    if (message !== undefined && Array.isArray(message.content))
      message.content = message.content.filter((block) => block.type !== "thinking");
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
    if (block !== undefined) block.thinking = `${String(block.thinking)}!`;
  }
  if (edit === "strip_last_thinking") drop(assistants.at(-1));
  if (body.messages.at(-1)?.role === "assistant")
    body.messages.push({ role: "user", content: "next" });
  if (behavior !== undefined)
    body.thinking = { ...body.thinking, block_binding: { prefix_mismatch_behavior: behavior } };
  const result = impl.judge(body, beta, mode) as { ok: boolean; previous?: unknown };
  const { previous: _signatureSpecific, ...comparable } = result;
  return comparable;
}

describe("the stand-in's preserved-thinking rules", () => {
  it("give the loopback server's verdict for every conversation and edit", () => {
    fc.assert(
      fc.property(scenario, (value) => {
        expect(verdict(rules.standIn, value)).toEqual(verdict(rules.loopback, value));
      }),
      { numRuns: 300, seed: 25 },
    );
  });

  it("refuse an edit before signed thinking, as the loopback does (the comparison can fail)", () => {
    const edited: Scenario = {
      turns: [false, false],
      edit: "edit_first_user",
      behavior: undefined,
      beta: true,
      mode: "enforced",
    };
    expect(verdict(rules.standIn, edited)).toMatchObject({ ok: false });
    expect(verdict(rules.standIn, { ...edited, edit: "none" })).toMatchObject({ ok: true });
  });
});
