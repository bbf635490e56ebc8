import type { Content, Part } from "@google/genai";
import { INTERRUPTED_NOTICE } from "../core/interrupted-calls.js";
import { isPlainObject } from "../internal/plain-object.js";

type Call = { id?: unknown; name?: unknown };

/** The `functionCall` (or `functionResponse`) objects of a content's parts, unchecked input read with care. */
function dataOf(content: unknown, key: "functionCall" | "functionResponse"): Call[] | undefined {
  if (!isPlainObject(content) || !Array.isArray(content["parts"])) return undefined;
  const found: Call[] = [];
  for (const part of content["parts"] as unknown[]) {
    const data = isPlainObject(part) ? part[key] : undefined;
    if (isPlainObject(data)) found.push(data);
  }
  return found;
}

/**
 * `contents` with the calls that their last content, of function responses alone, leaves
 * unanswered closed by an error response (`INTERRUPTED_NOTICE`) after the others, as the
 * conversion closes an interrupted call anywhere else. Gemini takes the responses to a turn's
 * calls in the one content after it, as many as the calls ("Please ensure that the number of
 * function response parts is equal to the number of function call parts of the function call
 * turn"), and its roles alternate, so no later content can answer them: the request as it
 * stood was refused. A response answers the call of its id, else the first open one of its
 * name, as Gemini pairs them. The same array when every call is answered, when none is (the
 * conversion reports responses of no call), and when the last content is the model's calls,
 * still awaiting their responses (the open tail).
 */
export function withPartialResponsesClosed(contents: readonly Content[]): readonly Content[] {
  const last = contents.at(-1);
  const turn = contents.at(-2);
  if (!isPlainObject(turn) || turn["role"] !== "model" || last?.role === "model") return contents;
  const responses = dataOf(last, "functionResponse");
  const calls = dataOf(turn, "functionCall");
  if (responses === undefined || calls === undefined) return contents;
  if (responses.length === 0 || responses.length !== last!.parts!.length) return contents;
  // Open calls by id, and by name in order (the first open one of a name answers first).
  const byId = new Map<unknown, number>();
  const byName = new Map<unknown, { calls: number[]; next: number }>();
  calls.forEach((call, index) => {
    if (call.id !== undefined) byId.set(call.id, index);
    const named = byName.get(call.name);
    if (named === undefined) byName.set(call.name, { calls: [index], next: 0 });
    else named.calls.push(index);
  });
  const answered = new Set<number>();
  for (const response of responses) {
    if (response.id !== undefined) {
      const at = byId.get(response.id);
      if (at !== undefined) answered.add(at);
      continue;
    }
    const named = byName.get(response.name);
    // The first of the name not answered yet (each passed at most once: linear).
    while (named !== undefined && named.next < named.calls.length) {
      const at = named.calls[named.next++]!;
      if (answered.has(at)) continue;
      answered.add(at);
      break;
    }
  }
  if (answered.size === 0 || answered.size === calls.length) return contents;
  const closings: Part[] = [];
  calls.forEach((call, index) => {
    if (answered.has(index)) return;
    closings.push({
      functionResponse: {
        ...(typeof call.id === "string" ? { id: call.id } : {}),
        ...(typeof call.name === "string" ? { name: call.name } : {}),
        response: { error: INTERRUPTED_NOTICE },
      },
    });
  });
  return [...contents.slice(0, -1), { ...last!, parts: [...last!.parts!, ...closings] }];
}
