import type { Content } from "@google/genai";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { isPlainObject } from "../internal/plain-object.js";
import { sameValue } from "../internal/same-value.js";
import { toGeminiContents } from "./contents-out.js";

const SUBJECT = "Gemini response";
const FIELD = "automaticFunctionCallingHistory";

/** What {@link callsTheSdkRan} reads of the session: its messages, and whether it takes results. */
interface RanCallsTarget {
  readonly messages?: readonly Message[];
  addToolResults?: unknown;
}

function fail(path: (string | number)[], message: string): never {
  throw new ValidationError(SUBJECT, [{ path: [FIELD, ...path], message }]);
}

/** Whether a content holds a part with `key` (`functionCall`, `functionResponse`). */
function holds(content: unknown, key: string): boolean {
  if (!isPlainObject(content) || !Array.isArray(content["parts"])) return false;
  return content["parts"].some((part) => isPlainObject(part) && part[key] !== undefined);
}

/**
 * The contents the SDK's automatic function calling added to a request built from the session's
 * messages (`toGeminiContents(session.messages)`, as the loop builds it): each model content of
 * calls it ran and the user content of their responses, in order. The SDK's own `Chat` appends
 * them to its history; without them the calls and their results are lost to every later turn
 * and summary. None when the response holds no such history.
 * @throws {ValidationError} when the history does not continue the session's messages, is not
 * pairs of calls and responses after them, or the session cannot take them.
 */
export function callsTheSdkRan(target: RanCallsTarget, history: unknown): Content[] {
  if (history === undefined || history === null) return [];
  if (!Array.isArray(history)) return fail([], "must be an array of contents");
  const { messages } = target;
  if (messages === undefined || typeof target.addToolResults !== "function")
    return fail([], "needs a session (its messages and addToolResults) to take the calls it ran");
  const sent = toGeminiContents(messages);
  const at = sent.length;
  const last = sent[at - 1];
  if (history.length < at || (last !== undefined && !sameValue(history[at - 1], last)))
    return fail(
      [],
      "does not continue the session's messages: build the request with toGeminiContents(session.messages), or disable automatic function calling",
    );
  const ran = history.slice(at);
  for (let index = 0; index < ran.length; index += 1) {
    const expected = index % 2 === 0 ? "functionCall" : "functionResponse";
    if (!holds(ran[index], expected))
      fail(
        [at + index],
        `must be a content of ${expected} parts (a call the SDK ran, then its responses)`,
      );
  }
  if (ran.length % 2 !== 0)
    fail([history.length], "must hold the responses of the last call the SDK ran");
  return ran as Content[];
}
