import fc from "fast-check";
import { expect } from "vitest";
import { isSummaryTurn } from "../../src/core/turn.js";
import {
  type CompactionResult,
  estimateTokens,
  type Message,
  validateConversation,
} from "../../src/index.js";

/** The last user message that says something (not only tool results), summary excluded. */
export function latestUserRequest(messages: readonly Message[]): Message | undefined {
  return messages.findLast(
    (message) =>
      message.role === "user" &&
      !isSummaryTurn(message.turnId) &&
      message.content.some((block) => block.type !== "tool_result"),
  );
}

/** The last assistant message. */
export function latestAssistant(messages: readonly Message[]): Message | undefined {
  return messages.findLast((message) => message.role === "assistant");
}

/** A JSON copy, to compare before and after (dates as strings). */
export function snapshot(messages: readonly Message[]): unknown {
  return JSON.parse(JSON.stringify(messages));
}

/** Checks the invariants every compaction keeps, `input` being valid. */
export function expectCompactionInvariants(
  input: readonly Message[],
  output: readonly Message[],
  result: CompactionResult,
): void {
  expect(validateConversation(output)).toEqual([]);
  expect(estimateTokens(output)).toBeLessThanOrEqual(estimateTokens(input));
  for (const count of [
    result.toolResultsSummarized,
    result.toolResultsRedacted,
    result.turnsCompacted,
  ]) {
    expect(Number.isInteger(count) && count >= 0).toBe(true);
  }
  // The latest user request always stays verbatim; so does the latest assistant message when
  // it answers that request (an answer to an older turn may be folded into a summary whole).
  const request = latestUserRequest(input);
  const assistant = latestAssistant(input);
  const mustKeep = [request];
  if (
    assistant !== undefined &&
    (request === undefined || input.indexOf(assistant) > input.indexOf(request))
  )
    mustKeep.push(assistant);
  for (const before of [request, assistant]) {
    if (before === undefined) continue;
    const after = output.find((message) => message.id === before.id);
    if (after === undefined && !mustKeep.includes(before)) continue;
    expect(after, `message ${before.id} kept`).toBeDefined();
    // The user's own words; tool results sharing the message may be masked like any other.
    const words = (message: Message) =>
      before === request
        ? { ...message, content: message.content.filter((block) => block.type !== "tool_result") }
        : message;
    expect(snapshot([words(after!)])).toEqual(snapshot([words(before)]));
  }
  if (assistant !== undefined && output.some((message) => message.id === assistant.id)) {
    const thinking = (message: Message | undefined) =>
      JSON.stringify(
        message?.content.filter(
          (block) => block.type === "thinking" || block.type === "redacted_thinking",
        ),
      );
    expect(thinking(output.find((message) => message.id === assistant.id))).toBe(
      thinking(assistant),
    );
  }
}

/** Picks some tool use ids of a conversation and gives them compact summaries. */
export function summariesArbitrary(
  messages: readonly Message[],
): fc.Arbitrary<Map<string, string>> {
  const ids = messages.flatMap((message) =>
    message.content.flatMap((block) => (block.type === "tool_result" ? [block.toolUseId] : [])),
  );
  if (ids.length === 0) return fc.constant(new Map());
  return fc
    .array(
      fc.tuple(
        fc.constantFrom(...ids),
        fc.oneof(
          fc.constantFrom("ok", "3 files", "exit 1: not found"),
          fc.string({ maxLength: 300 }),
        ),
      ),
      {
        maxLength: 6,
      },
    )
    .map((entries) => new Map(entries));
}

/** A fixed seed per suite, overridable with FC_SEED to replay a failure. */
export function seed(fallback: number): number {
  const fromEnv = Number(process.env["FC_SEED"]);
  return Number.isInteger(fromEnv) ? fromEnv : fallback;
}
