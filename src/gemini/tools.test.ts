import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeminiApiServer, type GeminiReply } from "../../test/support/gemini-api-server.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { ToolResultInput } from "../core/tool-result-input.js";
import { AgentSession } from "../session/agent-session.js";
import { toGeminiContents } from "./contents-out.js";
import { GeminiLlmClient } from "./llm-client.js";
import { appendGeminiResponse } from "./response.js";
import { answerCompact, answerRecall, COMPACT_FUNCTION, RECALL_FUNCTION } from "./tools.js";

let server: GeminiApiServer;
let ai: GoogleGenAI;
let next: GeminiReply = { parts: [{ text: "ok" }] };
const config = {
  tools: [
    {
      functionDeclarations: [
        { name: "read_file", parametersJsonSchema: { type: "object" } },
        RECALL_FUNCTION,
        COMPACT_FUNCTION,
      ],
    },
  ],
};

beforeAll(async () => {
  // A summary request (a transcript: no tools) gets a summary; the agent's, the scripted reply.
  server = await GeminiApiServer.start((request) =>
    request.body["tools"] === undefined ? { parts: [{ text: "Summary: a.ts was read." }] } : next,
  );
  ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: server.url } });
});
afterAll(() => server.close());

/** One request from the session's contents, the reply appended; its calls. */
async function step(session: AgentSession, reply: GeminiReply) {
  next = reply;
  await session.maybeCompact();
  const response = await ai.models.generateContent({
    model: "gemini-3-flash-preview",
    contents: toGeminiContents(session.messages),
    config,
  });
  return appendGeminiResponse(session, response).toolUses;
}

const FILE = Array.from({ length: 200 }, (_, line) => `const line${line} = ${line};`).join("\n");

describe("RECALL_FUNCTION and COMPACT_FUNCTION", () => {
  it("let the model fetch back a result compaction removed, through the real SDK", async () => {
    const session = new AgentSession({ contextLimit: 4_000 });
    session.addUserText("Read a.ts, b.ts and c.ts.");
    for (const path of ["a.ts", "b.ts", "c.ts"]) {
      const calls = await step(session, {
        parts: [{ functionCall: { name: "read_file", args: { path } } }],
      });
      session.addToolResults(
        calls.map((call) => ({
          type: "tool_result",
          toolUseId: call.id,
          content: `${path}\n${FILE}`,
        })),
      );
    }
    await session.maybeCompact();
    const handle = /\[recall ([\w-]+)\]/.exec(JSON.stringify(session.messages))?.[1];
    expect(handle).toBeDefined();
    // The answer comes in pages (an eighth of the window each), each but the last naming the
    // call for the next: the model asks for them in turn.
    let recalled = "";
    for (let page = 1; page <= 10; page += 1) {
      const args = page === 1 ? { handle } : { handle, page };
      const [call] = await step(session, {
        parts: [{ functionCall: { name: RECALL_FUNCTION.name, args } }],
      });
      const answer = await answerRecall(session, call!);
      expect(answer).toMatchObject({ tool_use_id: call!.id, content: expect.any(String) });
      session.addToolResults([answer]);
      recalled += answer.content as string;
      if (!(answer.content as string).includes(`"page": ${page + 1}`)) break;
    }
    expect(recalled).toContain("a.ts\nconst line0 = 0;");
    expect(recalled).toContain("const line199 = 199;");
    await step(session, { parts: [{ text: "Recalled." }] });
    expect(server.refusals).toEqual([]);
    expect(server.requests.at(-1)?.body["tools"]).toEqual(config.tools);
    const unknown = await answerRecall(session, { id: "x", input: { handle: "r999-none" } });
    expect(unknown).toMatchObject({ is_error: true });
  });

  it("let the model ask for a compaction, which the next maybeCompact runs with its notes", async () => {
    const session = new AgentSession({
      contextLimit: 100_000,
      llmCompactor: new LLMCompactor(
        new GeminiLlmClient({ client: ai, model: "gemini-2.5-flash-lite" }),
        { keepRecentTurns: 1 },
      ),
    });
    session.addUserText("Read a.ts.");
    const [read] = await step(session, {
      parts: [{ functionCall: { name: "read_file", args: { path: "a.ts" } } }],
    });
    session.addToolResults([{ type: "tool_result", toolUseId: read!.id, content: FILE }]);
    await step(session, { parts: [{ text: "a.ts defines 200 constants." }] });
    session.addUserText("Now add a test.");
    const [compact] = await step(session, {
      parts: [
        {
          functionCall: {
            name: COMPACT_FUNCTION.name,
            args: { notes: "Keep: a.ts has 200 constants." },
          },
        },
      ],
    });
    const results: ToolResultInput[] = [answerCompact(session, compact!)];
    expect(results[0]).toMatchObject({ content: expect.stringContaining("Compaction scheduled") });
    session.addToolResults(results);
    const report = await session.maybeCompact();
    expect(report.compacted).toBe(true);
    expect(JSON.stringify(server.requests.at(-1)?.body["contents"])).toContain(
      "Keep: a.ts has 200 constants.",
    );
    expect(answerCompact(session, { id: "y", input: { notes: 7 } })).toMatchObject({
      is_error: true,
    });
    await step(session, { parts: [{ text: "Added the test." }] });
    expect(server.refusals).toEqual([]);
  });
});
