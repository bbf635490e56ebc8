import { type FunctionDeclaration, GoogleGenAI } from "@google/genai";
import { afterEach, describe, expect, it } from "vitest";
import { offlineGemini } from "../../examples/support/offline-gemini.js";
import { GeminiApiServer } from "../../test/support/gemini-api-server.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { ToolUseBlock } from "../core/message.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { validateConversation } from "../core/validate-conversation.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionEvent } from "../session/events.js";
import { toGeminiContents } from "./contents-out.js";
import { GeminiLlmClient } from "./llm-client.js";
import { appendGeminiResponse } from "./response.js";

const FILES = Object.fromEntries(
  Array.from({ length: 12 }, (_, index) => [
    `src/module${index}.ts`,
    Array.from({ length: 30 }, (_, line) => `export const value${index}_${line} = ${line};`).join(
      "\n",
    ),
  ]),
);
const TOOLS: FunctionDeclaration[] = [
  {
    name: "read_file",
    description: "Returns a file of the repository.",
    parametersJsonSchema: { type: "object", properties: { path: { type: "string" } } },
  },
];
const AGENT = {
  model: "gemini-3-flash-preview",
  config: {
    systemInstruction: "You read the files the user names.",
    tools: [{ functionDeclarations: TOOLS }],
    thinkingConfig: { includeThoughts: true },
  },
};

function run(call: ToolUseBlock): ToolResultInput {
  const path = String(call.input["path"]);
  return {
    type: "tool_result",
    toolUseId: call.id,
    content: FILES[path] ?? `No such file: ${path}`,
  };
}

let server: GeminiApiServer | undefined;
afterEach(() => server?.close());

/** The README's loop: compact, send the session's contents, append the reply, run the calls. */
async function loop(session: AgentSession, ai: GoogleGenAI, tasks: readonly string[]) {
  for (const task of tasks) {
    session.addUserText(task);
    for (let step = 0; step < 20; step += 1) {
      await session.maybeCompact();
      expect(validateConversation(session.messages, { provider: "gemini" })).toEqual([]);
      const response = await ai.models.generateContent({
        ...AGENT,
        contents: toGeminiContents(session.messages),
      });
      const { toolUses } = appendGeminiResponse(session, response);
      if (toolUses.length === 0) break;
      session.addToolResults(toolUses.map(run));
    }
  }
}

const paths = (from: number, to: number) => Object.keys(FILES).slice(from, to).join(" and ");

describe("a Gemini agent loop through @google/genai, compacting as it goes", () => {
  it("folds old turns into a Gemini-written summary with thinking and signatures on: no request refused", async () => {
    server = await GeminiApiServer.start(offlineGemini(), {
      contextWindow: 6_000,
      minCacheTokens: 256,
    });
    const ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 6_000,
      compactor: false,
      llmCompactor: new LLMCompactor(new GeminiLlmClient({ client: ai, request: AGENT }), {
        threshold: 0.6,
        keepRecentTurns: 1,
        maxSummaryTokens: 400,
      }),
      onEvent: (event) => events.push(event),
    });
    await loop(session, ai, [
      `Read ${paths(0, 4)}. Never modify files under vendor/.`,
      `Now read ${paths(4, 8)}.`,
      `And ${paths(8, 12)}.`,
      "Which rule did I give you?",
    ]);
    expect(server.refusals).toEqual([]);
    const ended = events.filter((event) => event.type === "compaction_end");
    expect(ended.map((event) => event.strategy)).toContain("llm");
    expect(events.filter((event) => event.type === "compaction_failed")).toEqual([]);
    // Signed calls went back: every request after the first tool call carried signatures.
    const signed = server.requests.filter((request) =>
      JSON.stringify(request.body).includes("thoughtSignature"),
    );
    expect(signed.length).toBeGreaterThan(5);
    // The summary request shared the agent's prefix: the implicit cache served most of it.
    const summaries = server.requests.filter((request) =>
      JSON.stringify(request.body["contents"]).includes("conversation summarizer"),
    );
    expect(summaries.length).toBeGreaterThan(0);
    const last = String(
      session.messages.at(-1)?.content.find((block) => block.type === "text")?.type,
    );
    expect(last).toBe("text");
  });

  it("compacts inside one long turn: the current turn's calls keep their signatures, so none is refused", async () => {
    server = await GeminiApiServer.start(offlineGemini({ parallel: 1, callIds: true }), {
      contextWindow: 5_000,
    });
    const ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
    const events: CompactionEvent[] = [];
    const session = new AgentSession({
      contextLimit: 5_000,
      onEvent: (event) => events.push(event),
    });
    await loop(session, ai, [`Read ${paths(0, 12)}.`]);
    expect(server.refusals).toEqual([]);
    expect(events.some((event) => event.type === "compaction_end")).toBe(true);
    // One request throughout: the compaction happened while its calls were the current turn's,
    // and the turn went on to the end, its later calls sent back signed.
    const reply = session.messages.at(-1)!.content.find((block) => block.type === "text");
    expect(reply).toMatchObject({ text: expect.stringContaining("12 file(s)") });
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("thoughtSignature");
  });
});
