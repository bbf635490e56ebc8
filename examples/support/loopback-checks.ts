import {
  compactionProblem,
  isCompactionRequest,
} from "../../src/testing/anthropic-rules/compaction.js";
import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import { judgeThinking } from "../../src/testing/anthropic-rules/thinking.js";
import { toolChoiceProblem } from "../../src/testing/anthropic-rules/tool-choice.js";
import {
  type ApiProblem,
  betasOf,
  type RuleRequest,
} from "../../src/testing/anthropic-rules/wire.js";
import { contextManagementProblem } from "./context-editing.js";
import { type AcceptedThinking, type ModelView, modelView } from "./loopback-replies.js";
import type {
  Endpoint,
  MessagesApiServerOptions,
  RecordedRequest,
  Reply,
} from "./messages-api-types.js";
import { systemMessageProblem } from "./system-messages.js";

/**
 * The loopback server's checks on a request before the model reads it, the rules of
 * `src/testing/anthropic-rules/` (the stand-in's) and of this folder read from the request's
 * body and `anthropic-beta` header.
 */

/** A request the checks refuse (the error reply), or what the model reads of one they accept. */
export type CheckedRequest = { refusal: Reply } | { thinking: AcceptedThinking; view: ModelView };

/** An API error reply the SDK should not retry. */
export function errorReply(status: number, message: string): Reply {
  return { type: "error", status, message, headers: { "x-should-retry": "false" } };
}

/**
 * The error a request gets before the model reads it: the API's checks on compaction, system
 * messages, the messages' structure and context editing, then preserved thinking, then the
 * context window. Otherwise the request's thinking verdict and the model's view of it, for its
 * answer.
 */
export function checkRequest(
  recorded: RecordedRequest,
  endpoint: Endpoint,
  options: MessagesApiServerOptions,
): CheckedRequest {
  const rules: RuleRequest = {
    body: recorded.body,
    betas: betasOf(recorded.headers["anthropic-beta"]),
  };
  const thinkByDefault = options.thinkByDefault ?? false;
  const problem = requestProblem(rules, endpoint, thinkByDefault);
  if (problem !== undefined) {
    const refusal: Reply = {
      type: "error",
      status: problem.status,
      message: problem.message,
      ...(problem.errorType === undefined ? {} : { errorType: problem.errorType }),
      ...(problem.errorCode === undefined ? {} : { errorCode: problem.errorCode }),
      headers: { "x-should-retry": "false" },
    };
    return { refusal };
  }
  const compaction = endpoint === "messages" && isCompactionRequest(recorded.body);
  const thinking = judgeThinking(rules, {
    endpoint,
    // A compaction request writes a summary, not a turn: the summarizer reads the thinking,
    // and "If a condition doesn't hold, nothing fails when you compact".
    mode: compaction ? "off" : (options.preservedThinking ?? "enforced"),
    thinkByDefault,
  });
  if (!thinking.ok) return { refusal: errorReply(400, thinking.message) };
  const view = modelView(recorded.body, thinking.dropped);
  const window = options.contextWindow;
  if (endpoint === "messages" && window !== undefined && view.tokens > window) {
    return {
      refusal: errorReply(400, `prompt is too long: ${view.tokens} tokens > ${window} maximum`),
    };
  }
  return { thinking, view };
}

/**
 * What the API refuses a request for before the model sees it (compaction, `tool_choice`:
 * `anthropic-rules/tool-choice.ts`, system messages, the messages' structure:
 * `anthropic-rules/request.ts`, context editing).
 */
function requestProblem(
  rules: RuleRequest,
  endpoint: Endpoint,
  thinkByDefault: boolean,
): ApiProblem | undefined {
  const compaction = endpoint === "messages" ? compactionProblem(rules) : undefined;
  if (compaction !== undefined) return compaction;
  const toolChoice = toolChoiceProblem(rules.body);
  if (toolChoice !== undefined) return toolChoice;
  const system = systemMessageProblem(rules);
  if (system !== undefined) return { status: 400, message: system };
  const messages = (rules.body as { messages?: unknown }).messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return { status: 400, message: "messages: at least one message is required" };
  // Pairing, roles (consecutive turns merged, as the API merges them) and empty messages.
  const [structure] = requestProblems(messages, { roles: "merged" });
  if (structure !== undefined) return { status: 400, message: structure };
  return contextManagementProblem(rules, { thinkByDefault });
}
