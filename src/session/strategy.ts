import { anthropicProblems } from "../core/anthropic-validity.js";
import type { CompactionOutput, Compactor } from "../core/compactor.js";
import type { ConversationProblem } from "../core/conversation-problem.js";
import { latestRequestIndex } from "../core/conversation-structure.js";
import { assertMessages } from "../core/entry-validation.js";
import { CompactionError, ValidationError, type ValidationIssue } from "../core/errors.js";
import type { Message } from "../core/message.js";

/** A compactor's strategy name: its `strategy` property, else `custom`. */
export function strategyOf(compactor: Compactor): string {
  const strategy: unknown = compactor.strategy;
  return typeof strategy === "string" && strategy !== "" ? strategy : "custom";
}

/**
 * A failure as a `CompactionError`: a summarizer's failures already are one; anything else a
 * compactor throws is a bug in that compactor (`compactor_error`), never the summarizer's.
 */
export function asCompactionError(error: unknown, compactor: Compactor): CompactionError {
  if (CompactionError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CompactionError(
    "compactor_error",
    `the ${strategyOf(compactor)} compactor threw: ${message}`,
    { cause: error },
  );
}

/** Validates what a custom compactor returned. @throws {ValidationError} naming what is wrong. */
export function assertCompactorOutput(output: unknown): asserts output is CompactionOutput {
  const conversation = (output as Partial<CompactionOutput> | null)?.conversation;
  if (typeof output !== "object" || output === null || !Array.isArray(conversation)) {
    throw new ValidationError("compactor output", [
      { path: ["conversation"], message: "must be an array of messages" },
    ]);
  }
  assertMessages(conversation, "compactor output conversation");
}

/**
 * Checks what a custom compactor made of `input` as the intake checks input: not empty, the
 * latest request kept (by id), and no problem the Messages API would reject that `input` did
 * not have already (a tool result orphaned, a call left without its result).
 * @throws {ValidationError} naming each problem; nothing of the output is applied.
 */
export function assertKeeps(input: readonly Message[], output: readonly Message[]): void {
  const issues: ValidationIssue[] = [];
  if (input.length > 0 && output.length === 0) {
    issues.push({ path: ["conversation"], message: "must not be empty (the input was not)" });
  } else {
    const latest = input[latestRequestIndex(input)];
    if (latest !== undefined && !output.some((message) => message.id === latest.id)) {
      issues.push({
        path: ["conversation"],
        message: `dropped the latest request (message ${JSON.stringify(latest.id)}); keep it`,
      });
    }
    const known = new Set(messagesApiProblems(input).map(problemKey));
    for (const problem of messagesApiProblems(output)) {
      if (known.has(problemKey(problem))) continue;
      const at = problem.messageIndex === undefined ? [] : [problem.messageIndex];
      issues.push({
        path: ["conversation", ...at],
        message: `${problem.code}: ${problem.message}`,
      });
    }
  }
  if (issues.length > 0) throw new ValidationError("compactor output", issues);
}

/**
 * What the Messages API would reject in messages already validated (the session's history, an
 * output `assertCompactorOutput` checked): `validateConversation`'s default rules, without its
 * schema parse or the other providers' rules.
 */
function messagesApiProblems(messages: readonly Message[]): ConversationProblem[] {
  const problems: ConversationProblem[] = [];
  anthropicProblems(messages, (problem) => problems.push(problem));
  return problems;
}

function problemKey(problem: { code: string; toolUseId?: string }): string {
  return `${problem.code} ${problem.toolUseId ?? ""}`;
}
