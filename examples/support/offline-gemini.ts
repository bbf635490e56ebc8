import { offlineRecollection, offlineSummary, PATH_PATTERN } from "./code-reading.js";
import type { GeminiReply, GeminiScript, RecordedGeminiRequest } from "./gemini-api-server.js";
import type { WireContent, WirePart } from "./gemini-rules.js";
import { currentTurnStart } from "./gemini-rules.js";

/**
 * A deterministic stand-in for Gemini behind the loopback Gemini API server, so the Gemini example
 * (and the adapter's end-to-end tests) run offline. The server checks each request the way the
 * API does; this answers a summary request (its instruction names the summarizer) with a short
 * summary, and otherwise plays a code-reading agent: it calls `read_file` on the paths the
 * current request names, `parallel` at a time (parallel calls, as Gemini makes them), then
 * answers. With `thinkingConfig.includeThoughts` a reply leads with a thought summary.
 */

const SUMMARY_REQUEST =
  /conversation summarizer|Summarize this conversation|Summarize part|Combine these summaries/;

const partsOf = (content: WireContent | undefined): WirePart[] =>
  Array.isArray(content?.parts) ? (content.parts as WirePart[]) : [];
const textOf = (content: WireContent | undefined): string =>
  partsOf(content)
    .filter((part) => typeof part["text"] === "string" && part["thought"] !== true)
    .map((part) => part["text"] as string)
    .join("\n");

function summaryReply(contents: readonly WireContent[]): GeminiReply {
  return { parts: [{ text: offlineSummary(contents.map(textOf).join("\n")) }], thoughtsTokens: 30 };
}

/** The paths the current turn's calls already read. */
function readSoFar(contents: readonly WireContent[], from: number): Set<string> {
  const read = new Set<string>();
  for (const content of contents.slice(from)) {
    for (const part of partsOf(content)) {
      const call = part["functionCall"] as { args?: { path?: unknown } } | undefined;
      if (typeof call?.args?.path === "string") read.add(call.args.path);
    }
  }
  return read;
}

/** Options of {@link offlineGemini}. */
export interface OfflineGeminiOptions {
  /** Files read per reply (parallel function calls). @default 2 */
  parallel?: number;
  /** Whether function calls carry ids (the Gemini API may leave them out). @default false */
  callIds?: boolean;
}

/**
 * What the current request asks for, and what it already got: the paths in its last text part
 * (the user's words; a notice or summary the library wrote may sit before them in the same
 * content), and the paths its calls read or those notes say were read.
 */
function currentWork(contents: readonly WireContent[]): { wanted: string[]; read: Set<string> } {
  const start = currentTurnStart(contents);
  const texts = partsOf(contents[start])
    .filter((part) => typeof part["text"] === "string" && part["thought"] !== true)
    .map((part) => part["text"] as string);
  const request = texts.at(-1) ?? "";
  const read = readSoFar(contents, start + 1);
  for (const note of texts.slice(0, -1))
    for (const path of note.match(PATH_PATTERN) ?? []) read.add(path);
  return { wanted: [...new Set(request.match(PATH_PATTERN) ?? [])], read };
}

function agentReply(
  request: RecordedGeminiRequest,
  options: OfflineGeminiOptions,
  nextId: () => string,
): GeminiReply {
  const contents = (request.body["contents"] ?? []) as WireContent[];
  const { wanted, read } = currentWork(contents);
  const next = wanted.filter((path) => !read.has(path)).slice(0, options.parallel ?? 2);
  const config = request.body["generationConfig"] as
    | { thinkingConfig?: { includeThoughts?: boolean } }
    | undefined;
  const thought: WirePart[] =
    config?.thinkingConfig?.includeThoughts === true
      ? [
          {
            text: `Planning: ${next.length > 0 ? `read ${next.join(", ")}` : "answer"}.`,
            thought: true,
          },
        ]
      : [];
  if (next.length > 0) {
    const calls = next.map((path) => ({
      functionCall: {
        ...(options.callIds === true ? { id: nextId() } : {}),
        name: "read_file",
        args: { path },
      },
    }));
    return {
      parts: [...thought, { text: `Reading ${next.join(", ")}.` }, ...calls],
      thoughtsTokens: 40,
    };
  }
  if (wanted.length > 0)
    return {
      parts: [...thought, { text: `I read ${wanted.join(", ")}: ${wanted.length} file(s).` }],
      thoughtsTokens: 20,
    };
  // A question about the session: answer from what the history (summary included) still holds.
  const answer = offlineRecollection(contents.map(textOf).join("\n"));
  return { parts: [...thought, { text: answer }], thoughtsTokens: 20 };
}

/** The stand-in's reply script for `generateContent`. */
export function offlineGemini(options: OfflineGeminiOptions = {}): GeminiScript {
  let count = 0;
  const nextId = () => `call_offline_${String(++count).padStart(3, "0")}`;
  return (request) => {
    const contents = (request.body["contents"] ?? []) as WireContent[];
    const system = textOf(request.body["systemInstruction"] as WireContent | undefined);
    const last = textOf(contents.at(-1));
    if (SUMMARY_REQUEST.test(last) || SUMMARY_REQUEST.test(system)) return summaryReply(contents);
    return agentReply(request, options, nextId);
  };
}
