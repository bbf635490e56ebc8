import {
  judgeThinking as judgeRequestThinking,
  type ThinkingRuleOptions,
  type ThinkingVerdict,
} from "../../src/testing/anthropic-rules/thinking.js";
import { betasOf } from "../../src/testing/anthropic-rules/wire.js";

/**
 * Preserved thinking as the loopback Messages API reads it off HTTP: the rules are those of
 * `src/testing/anthropic-rules/` (where they are set out with their sources), the betas taken
 * from the `anthropic-beta` header. The checks run offline too, without a server.
 */

export {
  checkThinkingPrefix,
  THINKING_BINDING_BETA,
  type ThinkingFailure,
  type ThinkingFailureReason,
  type ThinkingPrefixChange,
} from "../../src/testing/anthropic-rules/prefix-check.js";
export {
  type InputTransformation,
  type PreservedThinkingMode,
  signReplyContent,
  type ThinkingRuleOptions,
  type ThinkingVerdict,
  thinkingProblems,
  thinksOn,
  toolLoopThinkingProblem,
} from "../../src/testing/anthropic-rules/thinking.js";

/** The parts of an HTTP request the checks read. */
export interface ThinkingRequest {
  /** The request body as JSON. */
  body: unknown;
  /** Request headers, names in lower case (`anthropic-beta` is read). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * What the server does with a request's thinking: the 400 it answers, or the blocks it drops
 * and the `input_transformations` it reports (`judgeThinking` of the rules, with the betas of
 * the request's `anthropic-beta` header).
 */
export function judgeThinking(
  request: ThinkingRequest,
  options: ThinkingRuleOptions & { endpoint?: "messages" | "count_tokens" } = {},
): ThinkingVerdict {
  return judgeRequestThinking(
    { body: request.body, betas: betasOf(request.headers?.["anthropic-beta"]) },
    options,
  );
}
