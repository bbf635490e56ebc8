import type { ConversationProblem } from "./conversation-problem.js";
import {
  type GeminiContentGroup,
  type GeminiEntry,
  geminiContentGroups,
  geminiSignature,
} from "./gemini-contents.js";
import type { Message } from "./message.js";

// The Gemini API's rules, as `validateConversation` checks them for `provider: "gemini"`, on the
// contents `toGeminiContents` makes of the messages (see gemini-contents.ts). The API's words
// where users reported them (google-gemini/gemini-cli issues #11814, #17208, #26956), the
// signature rule as ai.google.dev/gemini-api/docs/thought-signatures documents it.

type Report = (problem: ConversationProblem) => void;

const CALL_PLACEMENT =
  "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
const RESPONSE_PLACEMENT =
  "Please ensure that function response turn comes immediately after a function call turn.";
const RESPONSE_COUNT =
  "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";

/** The API's words for a function call of the current turn sent back without its signature. */
export function missingSignatureMessage(name: string, position: number): string {
  return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
}

const calls = (group: GeminiContentGroup | undefined): GeminiEntry[] =>
  group?.entries.filter((entry) => entry.block.type === "tool_use") ?? [];
const results = (group: GeminiContentGroup | undefined): GeminiEntry[] =>
  group?.entries.filter((entry) => entry.block.type === "tool_result") ?? [];

const where = (entry: GeminiEntry, id: string) => ({
  messageIndex: entry.messageIndex,
  blockIndex: entry.blockIndex,
  toolUseId: id,
});
const idOf = (entry: GeminiEntry): string =>
  entry.block.type === "tool_use"
    ? entry.block.id
    : entry.block.type === "tool_result"
      ? entry.block.toolUseId
      : "";

/** Reports each entry with `code` and `message`. */
function reportAll(
  entries: readonly GeminiEntry[],
  code: ConversationProblem["code"],
  message: (entry: GeminiEntry) => string,
  report: Report,
): void {
  for (const entry of entries)
    report({ code, ...where(entry, idOf(entry)), message: message(entry) });
}

/** A model turn: no responses in it; its calls right after a user turn, answered in the next. */
function checkModelTurn(
  groups: readonly GeminiContentGroup[],
  index: number,
  report: Report,
): void {
  const group = groups[index]!;
  reportAll(
    results(group),
    "tool_result_in_assistant_message",
    (entry) => `messages.${entry.messageIndex}: a function response can only be in a user turn`,
    report,
  );
  const made = calls(group);
  if (made.length > 0 && groups[index - 1]?.role !== "user")
    reportAll(made.slice(0, 1), "misplaced_function_call", () => CALL_PLACEMENT, report);
  if (made.length > 0 && results(groups[index + 1]).length === 0)
    reportAll(made, "missing_tool_result", () => RESPONSE_COUNT, report);
}

/** A user turn: no calls in it; its responses answer the calls of the turn before, one each. */
function checkUserTurn(groups: readonly GeminiContentGroup[], index: number, report: Report): void {
  const group = groups[index]!;
  reportAll(
    calls(group),
    "assistant_block_in_user_message",
    (entry) => `messages.${entry.messageIndex}: a function call can only be in a model turn`,
    report,
  );
  const answers = results(group);
  if (answers.length === 0) return;
  const open = new Map(calls(groups[index - 1]).map((call) => [idOf(call), call]));
  if (open.size === 0) {
    reportAll(answers, "orphan_tool_result", () => RESPONSE_PLACEMENT, report);
    return;
  }
  const answered = new Set<string>();
  for (const answer of answers) {
    const id = idOf(answer);
    const code = answered.has(id)
      ? "duplicate_tool_result"
      : open.has(id)
        ? undefined
        : "orphan_tool_result";
    if (code !== undefined) report({ code, ...where(answer, id), message: RESPONSE_COUNT });
    answered.add(id);
  }
  const missing = [...open].filter(([id]) => !answered.has(id)).map(([, call]) => call);
  reportAll(missing, "missing_tool_result", () => RESPONSE_COUNT, report);
}

/**
 * Where the current turn starts: at the last user content with more than function responses
 * (a new request), else at the start. Only its function calls must carry their signatures.
 */
function currentTurnStart(groups: readonly GeminiContentGroup[]): number {
  for (let index = groups.length - 1; index >= 0; index -= 1) {
    const group = groups[index]!;
    if (group.role === "user" && group.entries.some((entry) => entry.block.type !== "tool_result"))
      return index;
  }
  return 0;
}

/**
 * Gemini 3 and later: in the current turn, the first function call of each model turn (the one
 * the API signed; parallel calls after it carry none) comes back with its `thoughtSignature`.
 */
function checkSignatures(groups: readonly GeminiContentGroup[], report: Report): void {
  for (let index = currentTurnStart(groups); index < groups.length; index += 1) {
    const first = calls(groups[index])[0];
    if (first === undefined || first.block.type !== "tool_use") continue;
    const signature = geminiSignature(first.block);
    if (signature !== undefined && signature !== "") continue;
    report({
      code: "missing_thought_signature",
      ...where(first, first.block.id),
      message: missingSignatureMessage(first.block.name, index),
    });
  }
}

/**
 * The Gemini API's rules, on the `Content`s the messages make (user and model alternate; see
 * `geminiContentGroups`): at least one content; a function call turn right after a user turn;
 * its responses, one per call, in the very next turn; and (Gemini 3 and later) each function
 * call turn of the current turn with the thought signature of its first call.
 */
export function geminiProblems(messages: readonly Message[], report: Report): void {
  const groups = geminiContentGroups(messages);
  if (groups.length === 0) {
    report({
      code: "empty_conversation",
      message: "* GenerateContentRequest.contents: contents is not specified",
    });
    return;
  }
  groups.forEach((group, index) => {
    if (group.role === "model") checkModelTurn(groups, index, report);
    else checkUserTurn(groups, index, report);
  });
  checkSignatures(groups, report);
}
