import { LazilyCompiled } from "../internal/compiled-schema.js";
import { isPlainObject } from "../internal/plain-object.js";
import { anthropicProblemsAsSent } from "./anthropic-validity.js";
import { chatCompletionsProblems } from "./chat-completions-validity.js";
import type { ConversationProblem } from "./conversation-problem.js";
import { withDistinctToolIds } from "./distinct-tool-ids.js";
import { parseOrThrow, ValidationError } from "./errors.js";
import { geminiProblems } from "./gemini-validity.js";
import type { Message } from "./message.js";
import { aiSdkProblems, openAIProblems } from "./provider-validity.js";
import { LenientMessagesSchema } from "./schemas.js";

const PROVIDERS: readonly ConversationProvider[] = [
  "anthropic",
  "openai",
  "ai-sdk",
  "chat-completions",
  "gemini",
];

function providerOf(options: ValidateConversationOptions): ConversationProvider {
  const provider: unknown = isPlainObject(options)
    ? (options["provider"] ?? "anthropic")
    : undefined;
  const found = PROVIDERS.find((known) => known === provider);
  if (found !== undefined) return found;
  throw new ValidationError("validateConversation options", [
    {
      path: isPlainObject(options) ? ["provider"] : [],
      message: isPlainObject(options)
        ? 'must be "anthropic", "openai", "ai-sdk", "chat-completions" or "gemini"'
        : "must be an object",
    },
  ]);
}

export type { ConversationProblem, ConversationProblemCode } from "./conversation-problem.js";

/** The API a conversation is checked for: each has its own rules. */
export type ConversationProvider =
  | "anthropic"
  | "openai"
  | "ai-sdk"
  | "chat-completions"
  | "gemini";

/** Options of {@link validateConversation}. */
export interface ValidateConversationOptions {
  /**
   * The API the request goes to: `anthropic` (the Messages API), `openai` (the Responses API,
   * on the items `toResponsesInput` makes) or `ai-sdk` (what `generateText` accepts, on the
   * messages `toModelMessages` makes), `chat-completions` (OpenAI's Chat Completions and
   * compatible hosts, on the messages `toChatMessages` makes) or `gemini` (the Gemini API, on
   * the contents `toGeminiContents` makes; Gemini 3's thought signature rule included).
   * @default "anthropic"
   */
  provider?: ConversationProvider;
}

export { MAX_MESSAGES_PER_REQUEST } from "./anthropic-validity.js";

/** Schema of what `validateConversation` takes: messages whose content may be empty. */
export { LenientMessagesSchema };

const lenientMessagesSchema = /* @__PURE__ */ new LazilyCompiled(LenientMessagesSchema);

/**
 * The problems the API the conversation goes to would reject it for, in order; empty when it is
 * valid. `provider` picks the rules: the Anthropic Messages API's by default (tool pairing,
 * roles, placement, emptiness), OpenAI's Responses API's, the AI SDK's, Chat Completions' or Gemini's (see
 * {@link ValidateConversationOptions}). Messages must be well-formed (`ValidationError`
 * otherwise): this checks what the API checks across messages, on what the provider's converter
 * sends: a call whose id an earlier, answered call had is no problem, as `toAnthropicMessages`,
 * `toResponsesInput`, `toChatMessages` and `toModelMessages` send it as `<id>_<n>`.
 *
 * @example
 * const problems = validateConversation(session.messages, { provider: "openai" });
 * if (problems.length > 0) throw new Error(problems.map((p) => p.message).join("\n"));
 */
export function validateConversation(
  messages: readonly Message[],
  options: ValidateConversationOptions = {},
): ConversationProblem[] {
  const provider = providerOf(options);
  const schema = lenientMessagesSchema.for(messages);
  const parsed = parseOrThrow(schema, messages, "messages") as Message[];
  // Checks on what was parsed but reports on the caller's objects' positions: the same indexes.
  const problems: ConversationProblem[] = [];
  if (provider === "gemini") {
    geminiProblems(parsed, (problem) => problems.push(problem));
    return problems;
  }
  // The rules read the ids as the provider's converter sends them: a call reusing an answered
  // call's id goes as `<id>_<n>` (withDistinctToolIds keeps every block where it was), while a
  // problem names the caller's id.
  const sent = withDistinctToolIds(parsed);
  const report = (problem: ConversationProblem) => problems.push(callersId(problem, parsed));
  if (provider === "openai") openAIProblems(sent, report);
  else if (provider === "ai-sdk") aiSdkProblems(sent, report);
  else if (provider === "chat-completions") chatCompletionsProblems(sent, report);
  else anthropicProblemsAsSent(sent, report);
  return problems;
}

/** A problem naming the id its block has in `messages` (the caller's), not the one sent. */
function callersId(
  problem: ConversationProblem,
  messages: readonly Message[],
): ConversationProblem {
  const { messageIndex, blockIndex, toolUseId } = problem;
  if (toolUseId === undefined || messageIndex === undefined || blockIndex === undefined)
    return problem;
  const block = messages[messageIndex]?.content[blockIndex];
  const id =
    block?.type === "tool_use"
      ? block.id
      : block?.type === "tool_result"
        ? block.toolUseId
        : undefined;
  return id === undefined || id === toolUseId ? problem : { ...problem, toolUseId: id };
}
