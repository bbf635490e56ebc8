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

/** A function call turn after a user turn, and its responses in the very next turn, one each. */
function checkExchange(groups: readonly GeminiContentGroup[], index: number, report: Report): void {
  const group = groups[index]!;
  const before = groups[index - 1];
  if (group.role === "model") {
    for (const answer of results(group))
      report({
        code: "tool_result_in_assistant_message",
        ...where(answer, idOf(answer)),
        message: `messages.${answer.messageIndex}: a function response can only be in a user turn`,
      });
    const made = calls(group);
    const first = made[0];
    if (first !== undefined && before?.role !== "user")
      report({
        code: "misplaced_function_call",
        ...where(first, idOf(first)),
        message: CALL_PLACEMENT,
      });
    const next = groups[index + 1];
    if (made.length > 0 && results(next).length === 0) {
      for (const call of made)
        report({
          code: "missing_tool_result",
          ...where(call, idOf(call)),
          message: RESPONSE_COUNT,
        });
    }
    return;
  }
  for (const call of calls(group))
    report({
      code: "assistant_block_in_user_message",
      ...where(call, idOf(call)),
      message: `messages.${call.messageIndex}: a function call can only be in a model turn`,
    });
  const answers = results(group);
  if (answers.length === 0) return;
  const open = new Map(calls(before).map((call) => [idOf(call), call]));
  if (open.size === 0) {
    for (const answer of answers)
      report({
        code: "orphan_tool_result",
        ...where(answer, idOf(answer)),
        message: RESPONSE_PLACEMENT,
      });
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
  for (const [id, call] of open)
    if (!answered.has(id))
      report({ code: "missing_tool_result", ...where(call, id), message: RESPONSE_COUNT });
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
  for (let index = 0; index < groups.length; index += 1) checkExchange(groups, index, report);
  checkSignatures(groups, report);
}
