/**
 * A tool-using agent on the real `@google/genai` SDK, kept inside its context window by
 * agent-compaction:
 *
 *   maybeCompact() → build the contents from the compacted history → models.generateContent
 *   → append the response and record its usage → run the function calls → addToolResults
 *
 * With GEMINI_API_KEY (or GOOGLE_API_KEY) set it talks to the real Gemini API (model:
 * GEMINI_MODEL, default gemini-3-flash-preview). Without it, it talks to a built-in offline
 * stand-in: a loopback HTTP server speaking the Gemini API, which refuses what the API refuses
 * (a function call of the current turn sent back without its thought signature among them), so
 * `npx tsx examples/gemini-agent.ts` always runs. The context window is set small on purpose, so
 * compaction happens within a few requests.
 */
import { pathToFileURL } from "node:url";
import { type FunctionDeclaration, GoogleGenAI } from "@google/genai";
import {
  appendGeminiResponse,
  GeminiLlmClient,
  type GeminiRequestDescription,
  toGeminiContents,
} from "../src/gemini/index.js";
import { validateConversation } from "../src/index.js";
import {
  type AgentRunReport,
  type RunAgentOptions as CodeReadingOptions,
  codeReadingSession,
  emptyReport,
  percent,
  READ_FILE,
  SYSTEM,
  TASKS,
  takeStep,
} from "./support/code-reading.js";
import { GeminiApiServer } from "./support/gemini-api-server.js";
import { offlineGemini } from "./support/offline-gemini.js";

const TOOLS: FunctionDeclaration[] = [
  {
    name: READ_FILE.name,
    description: READ_FILE.description,
    parametersJsonSchema: READ_FILE.schema,
  },
];

/** What {@link runAgent} needs. */
export type RunGeminiAgentOptions = CodeReadingOptions<GoogleGenAI>;

export type { AgentRunReport };

/** The agent loop. */
export async function runAgent(options: RunGeminiAgentOptions): Promise<AgentRunReport> {
  const { client, model, log } = options;
  const contextLimit = options.contextLimit ?? 9000;
  const maxSteps = options.maxStepsPerTask ?? 8;
  const report = emptyReport();
  // The agent's own request: the summarizer sends the same one, so Gemini's implicit cache serves it.
  const request: GeminiRequestDescription = {
    model,
    config: {
      systemInstruction: SYSTEM,
      tools: [{ functionDeclarations: TOOLS }],
      thinkingConfig: { includeThoughts: true },
    },
  };
  const session = codeReadingSession(
    contextLimit,
    new GeminiLlmClient({ client, request }),
    report,
    log,
  );

  for (const task of TASKS) {
    log(`▶ user: ${task}`);
    session.addUserText(task);
    for (let step = 0; step < maxSteps; step += 1) {
      // Compact first, then build the request from what is left.
      await session.maybeCompact();
      report.peakContextUsed = Math.max(report.peakContextUsed, session.contextUsed);
      const problems = validateConversation(session.messages, { provider: "gemini" });
      if (problems.length > 0)
        throw new Error(problems.map((problem) => problem.message).join("\n"));
      const response = await client.models.generateContent({
        ...request,
        contents: toGeminiContents(session.messages),
      });
      report.requests += 1;
      const { message, toolUses } = appendGeminiResponse(session, response);
      log(`  context after the reply: ${percent(session.contextUsed, contextLimit)}`);
      if (!takeStep(session, { message, calls: toolUses }, report, log)) break;
    }
  }
  return { ...report, session };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const online = Boolean(process.env["GEMINI_API_KEY"] ?? process.env["GOOGLE_API_KEY"]);
  const server = online ? undefined : await GeminiApiServer.start(offlineGemini());
  const client = server
    ? new GoogleGenAI({ apiKey: "offline-stand-in", httpOptions: { baseUrl: server.url } })
    : new GoogleGenAI({});
  const model = process.env["GEMINI_MODEL"] ?? "gemini-3-flash-preview";
  log(
    online
      ? `Talking to the Gemini API (${model}).`
      : `GEMINI_API_KEY is not set: talking to the offline stand-in at ${server?.url}.`,
  );
  try {
    const report = await runAgent({ client, model, log });
    const { session } = report;
    log("");
    log(
      `Done: ${report.requests} requests, ${report.toolCalls} function calls, peak context ${percent(report.peakContextUsed, session.contextLimit)}.`,
    );
    log(
      `Compactions: ${report.compactions.threshold} by masking, ${report.compactions.llm} by LLM summary, ${report.compactions.failed} failed.`,
    );
    log(
      `The final history: ${session.messages.length} messages, ${toGeminiContents(session.messages).length} contents${server === undefined ? "" : `; the stand-in refused ${server.refusals.length} request(s)`}.`,
    );
  } finally {
    await server?.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
