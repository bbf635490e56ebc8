import { thinksOn } from "../../src/testing/anthropic-rules/thinking.js";
import type { ApiProblem, RuleRequest } from "../../src/testing/anthropic-rules/wire.js";

/**
 * Server-side context editing, as the loopback Messages API applies it, from
 * https://platform.claude.com/docs/en/build-with-claude/context-editing (read 2026-12 through a
 * stored mirror) and the SDK's types (`BetaClearToolUses20250919Edit`,
 * `BetaClearThinking20251015Edit`, `BetaContextManagementResponse`):
 * - `context_management.edits` (beta `context-management-2025-06-27`) apply "server-side before
 *   the prompt reaches Claude. Your client application maintains the full, unmodified
 *   conversation history", and "server-side context management never invalidates thinking
 *   blocks": the thinking check reads the request as sent.
 * - `clear_tool_uses_20250919`: once the prompt exceeds `trigger` (default 100,000
 *   `input_tokens`; or a count of `tool_uses`), "clears the oldest tool results in
 *   chronological order", keeping the `keep` most recent tool uses (default 3), never those of
 *   `exclude_tools`, replacing each result with placeholder text, and with `clear_tool_inputs`
 *   the tool call's input too; with `clear_at_least`, "If the API can't clear at least the
 *   specified amount, the strategy will not be applied".
 * - `clear_thinking_20251015`: `keep` `{ type: "thinking_turns", value: N }` or `"all"` (the
 *   default on Fable models, which this server plays); it must come first among the edits.
 * - The response's `context_management.applied_edits` lists each edit that cleared something:
 *   `{ type, cleared_tool_uses | cleared_thinking_turns, cleared_input_tokens }`; `usage`
 *   counts the edited prompt.
 */

/** The beta of context editing. */
export const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";

/** What a cleared tool result says instead. */
export const CLEARED_TOOL_RESULT = "[Tool result cleared by context management]";

/** One entry of the response's `context_management.applied_edits`. */
export type AppliedEdit =
  | { type: "clear_tool_uses_20250919"; cleared_tool_uses: number; cleared_input_tokens: number }
  | {
      type: "clear_thinking_20251015";
      cleared_thinking_turns: number;
      cleared_input_tokens: number;
    };

type Json = Record<string, unknown>;
type WireMessage = { role?: unknown; content?: unknown } & Json;

const EDIT_TYPES = new Set(["clear_tool_uses_20250919", "clear_thinking_20251015"]);

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const invalid = (message: string): ApiProblem => ({ status: 400, message });

function isCount(value: unknown, type: string, min: number): boolean {
  return (
    isRecord(value) &&
    value["type"] === type &&
    typeof value["value"] === "number" &&
    Number.isInteger(value["value"]) &&
    value["value"] >= min
  );
}

function clearToolUsesProblem(edit: Json, where: string): ApiProblem | undefined {
  const { trigger, keep, clear_at_least, exclude_tools, clear_tool_inputs } = edit;
  if (
    trigger !== undefined &&
    !isCount(trigger, "input_tokens", 1) &&
    !isCount(trigger, "tool_uses", 1)
  ) {
    return invalid(
      `${where}.trigger: Input should be {"type": "input_tokens" | "tool_uses", "value": N}`,
    );
  }
  if (keep !== undefined && !isCount(keep, "tool_uses", 0)) {
    return invalid(`${where}.keep: Input should be {"type": "tool_uses", "value": N}`);
  }
  if (clear_at_least != null && !isCount(clear_at_least, "input_tokens", 0)) {
    return invalid(`${where}.clear_at_least: Input should be {"type": "input_tokens", "value": N}`);
  }
  if (
    exclude_tools != null &&
    !(Array.isArray(exclude_tools) && exclude_tools.every((name) => typeof name === "string"))
  ) {
    return invalid(`${where}.exclude_tools: Input should be a list of tool names`);
  }
  if (
    clear_tool_inputs != null &&
    typeof clear_tool_inputs !== "boolean" &&
    !(
      Array.isArray(clear_tool_inputs) &&
      clear_tool_inputs.every((name) => typeof name === "string")
    )
  ) {
    return invalid(`${where}.clear_tool_inputs: Input should be a boolean or a list of tool names`);
  }
  return undefined;
}

/** The 400 the API answers a request's `context_management` with, or `undefined`. */
export function contextManagementProblem(
  request: RuleRequest,
  options: { thinkByDefault?: boolean } = {},
): ApiProblem | undefined {
  const body = isRecord(request.body) ? request.body : {};
  const management = body["context_management"];
  if (management === undefined || management === null) return undefined;
  if (!request.betas.includes(CONTEXT_MANAGEMENT_BETA)) {
    return invalid("context_management: Extra inputs are not permitted");
  }
  if (!isRecord(management)) return invalid("context_management: Input should be an object");
  const edits = management["edits"] ?? [];
  if (!Array.isArray(edits)) return invalid("context_management.edits: Input should be a list");
  for (const [index, edit] of edits.entries()) {
    const where = `context_management.edits.${index}`;
    if (!isRecord(edit) || !EDIT_TYPES.has(String(edit["type"]))) {
      return invalid(
        `${where}.type: the loopback server applies clear_tool_uses_20250919 and clear_thinking_20251015`,
      );
    }
    if (edit["type"] === "clear_thinking_20251015") {
      if (index !== 0) {
        return invalid(
          `${where}: clear_thinking_20251015 must be the first edit in context_management.edits`,
        );
      }
      if (!thinksOn(body, options.thinkByDefault)) {
        return invalid(`${where}: clear_thinking_20251015 requires thinking to be enabled`);
      }
      const keep = edit["keep"];
      if (keep !== undefined && keep !== "all" && !isCount(keep, "thinking_turns", 1)) {
        return invalid(
          `${where}.keep: Input should be "all" or {"type": "thinking_turns", "value": N > 0}`,
        );
      }
    } else {
      const problem = clearToolUsesProblem(edit, where);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** A deep copy of the messages the edits may change. */
function copyMessages(body: Json): WireMessage[] {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as WireMessage[]) : [];
  return messages.map((message) => ({
    ...message,
    content: Array.isArray(message.content)
      ? message.content.map((block) => (isRecord(block) ? { ...block } : block))
      : message.content,
  }));
}

function clearThinking(messages: WireMessage[], edit: Json): number {
  const keep =
    edit["keep"] === undefined || edit["keep"] === "all"
      ? Number.POSITIVE_INFINITY
      : Number((edit["keep"] as Json)["value"]);
  const turns = messages.filter(
    (message) =>
      message.role === "assistant" &&
      Array.isArray(message.content) &&
      message.content.some(
        (block) =>
          isRecord(block) &&
          (block["type"] === "thinking" || block["type"] === "redacted_thinking"),
      ),
  );
  const cleared = turns.slice(0, Math.max(0, turns.length - keep));
  for (const message of cleared) {
    message.content = (message.content as unknown[]).filter(
      (block) =>
        !(
          isRecord(block) &&
          (block["type"] === "thinking" || block["type"] === "redacted_thinking")
        ),
    );
  }
  return cleared.length;
}

interface ToolUse {
  use: Json;
  result: Json | undefined;
}

function toolUses(messages: readonly WireMessage[]): ToolUse[] {
  const uses: ToolUse[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "assistant" || !Array.isArray(message.content)) return;
    const next = messages[index + 1];
    const results = Array.isArray(next?.content) ? (next.content as unknown[]) : [];
    for (const block of message.content) {
      if (!isRecord(block) || block["type"] !== "tool_use") continue;
      const result = results.find(
        (candidate): candidate is Json =>
          isRecord(candidate) &&
          candidate["type"] === "tool_result" &&
          candidate["tool_use_id"] === block["id"],
      );
      uses.push({ use: block, result });
    }
  });
  return uses;
}

function clearToolUses(
  body: Json,
  messages: WireMessage[],
  edit: Json,
  tokens: (body: unknown) => number,
): number {
  const uses = toolUses(messages);
  const trigger = isRecord(edit["trigger"])
    ? edit["trigger"]
    : { type: "input_tokens", value: 100_000 };
  const measure = trigger["type"] === "tool_uses" ? uses.length : tokens({ ...body, messages });
  if (measure <= Number(trigger["value"])) return 0;
  const keep = isRecord(edit["keep"]) ? Number(edit["keep"]["value"]) : 3;
  const excluded = new Set(
    Array.isArray(edit["exclude_tools"]) ? (edit["exclude_tools"] as string[]) : [],
  );
  const inputs = edit["clear_tool_inputs"];
  const clearsInput = (name: string) =>
    inputs === true || (Array.isArray(inputs) && (inputs as string[]).includes(name));
  let cleared = 0;
  for (const { use, result } of uses.slice(0, Math.max(0, uses.length - keep))) {
    const name = String(use["name"]);
    if (excluded.has(name) || result === undefined || result["content"] === CLEARED_TOOL_RESULT)
      continue;
    result["content"] = CLEARED_TOOL_RESULT;
    if (clearsInput(name)) use["input"] = {};
    cleared += 1;
  }
  return cleared;
}

/**
 * The request as the model reads it after its `context_management.edits`, and the edits that
 * cleared something, in order. `tokens` counts a request body. The request must have passed
 * {@link contextManagementProblem}.
 */
export function applyContextEdits(
  body: unknown,
  tokens: (body: unknown) => number,
): { body: unknown; appliedEdits: AppliedEdit[] } {
  if (!isRecord(body) || !isRecord(body["context_management"])) return { body, appliedEdits: [] };
  const edits = (body["context_management"]["edits"] ?? []) as Json[];
  let messages = copyMessages(body);
  const appliedEdits: AppliedEdit[] = [];
  for (const edit of edits) {
    const before = tokens({ ...body, messages });
    const attempt = copyMessages({ messages });
    if (edit["type"] === "clear_thinking_20251015") {
      const turns = clearThinking(attempt, edit);
      if (turns === 0) continue;
      messages = attempt;
      appliedEdits.push({
        type: "clear_thinking_20251015",
        cleared_thinking_turns: turns,
        cleared_input_tokens: before - tokens({ ...body, messages }),
      });
      continue;
    }
    const uses = clearToolUses(body, attempt, edit, tokens);
    if (uses === 0) continue;
    const freed = before - tokens({ ...body, messages: attempt });
    const atLeast = isRecord(edit["clear_at_least"]) ? Number(edit["clear_at_least"]["value"]) : 0;
    if (freed < atLeast) continue;
    messages = attempt;
    appliedEdits.push({
      type: "clear_tool_uses_20250919",
      cleared_tool_uses: uses,
      cleared_input_tokens: freed,
    });
  }
  return { body: { ...body, messages }, appliedEdits };
}
