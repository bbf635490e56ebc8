/**
 * A LangChain agent (`createAgent` from `langchain` 1.x) kept inside its context window by
 * agent-compaction's middleware: before each model call it compacts the thread's messages
 * (old tool results masked first, then a summary written by a LangChain chat model), and the
 * model can fetch back what was removed with the `recall_compacted` tool.
 *
 * With LANGCHAIN_MODEL set (e.g. "anthropic:claude-haiku-4-5", its provider package such as
 * `@langchain/anthropic` installed and its API key set) it uses that model through
 * `initChatModel`. Without it, an offline fake chat model (LangChain's `fakeModel`, judged by
 * the Messages API's rules) plays Claude, so `npx tsx examples/langchain-agent.ts` always
 * runs. The context window is set small on purpose, so compaction happens within a few calls.
 */
import { pathToFileURL } from "node:url";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import {
  AIMessage,
  type BaseMessage,
  createAgent,
  HumanMessage,
  initChatModel,
  tool,
} from "langchain";
import * as z from "zod";
import { type CompactionEvent, HybridCompactor } from "../src/index.js";
import { compactionMiddleware, LangChainLlmClient } from "../src/langchain/index.js";
import { readFile, SYSTEM, TASKS } from "./support/code-reading-task.js";
import { AnthropicLikeModel } from "./support/offline-langchain-claude.js";

/** The agent's tool; `onCall` hears of each call. */
const readFileTool = (onCall: (path: string) => void) =>
  tool(
    async ({ path }: { path: string }) => {
      onCall(path);
      const file = readFile("read_file", path);
      if (file.isError) throw new Error(file.content);
      return file.content;
    },
    {
      name: "read_file",
      description: "Returns the contents of a file of the repository.",
      schema: z.object({ path: z.string().describe("Path such as src/lexer.ts") }),
    },
  );

const PATH_PATTERN = /\bsrc\/[\w-]+\.ts\b/g;

/** The offline Claude's next step: read the next file the last request names, then answer. */
function nextStep(
  messages: BaseMessage[],
): { text: string } | { toolCalls: { name: string; input: { path: string } }[] } {
  // The user's last request: not a message the library wrote (marked in additional_kwargs).
  const at = messages.findLastIndex(
    (message) =>
      message.type === "human" && message.additional_kwargs["agent_compaction"] === undefined,
  );
  const request = messages[at]?.text ?? "";
  const read = new Set(
    messages
      .slice(at)
      .flatMap((message) =>
        ((message as AIMessage).tool_calls ?? []).map((call) => String(call.args["path"])),
      ),
  );
  const next = (request.match(PATH_PATTERN) ?? []).find((path) => !read.has(path));
  if (next !== undefined) return { toolCalls: [{ name: "read_file", input: { path: next } }] };
  const rule = messages.some((message) =>
    message.text.includes("never modify files under vendor/"),
  );
  return {
    text: `Tokens flow from the lexer through the parser into the AST and out of the printer.${rule ? " Your rule: never modify files under vendor/." : ""}`,
  };
}

/**
 * An offline model answering every call with {@link nextStep} (`claude` has the requests it
 * judged and any it refused), and an offline summarizer.
 */
export function offlineModels(): {
  model: BaseChatModel;
  summarizer: BaseChatModel;
  claude: AnthropicLikeModel;
} {
  const claude = new AnthropicLikeModel({ contextWindow: 12_000 });
  for (let call = 0; call < 40; call += 1) claude.reply(nextStep);
  const summarizer = fakeModel();
  for (let call = 0; call < 10; call += 1) {
    summarizer.respond(
      new AIMessage(
        "The user asked how tokens flow through the compiler; the agent read the files named.",
      ),
    );
  }
  return { model: claude.model, summarizer, claude };
}

/** What {@link runLangChainAgent} needs. */
export interface RunLangChainAgentOptions {
  model: BaseChatModel;
  summarizer: BaseChatModel;
  log: (line: string) => void;
  /** The pretend context window. @default 9000 */
  contextLimit?: number;
}

/** The agent: one thread, a task per invoke, compaction before each model call. */
export async function runLangChainAgent(options: RunLangChainAgentOptions) {
  const { log } = options;
  const contextLimit = options.contextLimit ?? 9_000;
  const compactions: CompactionEvent[] = [];
  const compaction = compactionMiddleware({
    contextLimit,
    model: "claude-haiku-5-5", // its prices: the session counts dollars
    compactor: new HybridCompactor({
      client: new LangChainLlmClient({ model: options.summarizer }),
      threshold: 0.5,
      keepRecentToolUses: 2,
    }),
    onEvent: (event) => {
      if (event.type !== "compaction_end" && event.type !== "compaction_failed") return;
      compactions.push(event);
      if (event.type === "compaction_end")
        log(
          `  ⇣ compaction (${event.strategy}): context ${event.contextUsedBefore} → ${event.contextUsedAfter} tokens`,
        );
      else log(`  ! compaction failed: ${event.error.code}`);
    },
  });
  const agent = createAgent({
    model: options.model,
    tools: [readFileTool((path) => log(`  → read_file(${JSON.stringify({ path })})`))],
    systemPrompt: SYSTEM,
    middleware: [compaction],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "compiler-tour" }, recursionLimit: 50 };
  let answer = "";
  for (const task of TASKS) {
    log(`▶ user: ${task}`);
    const result = await agent.invoke({ messages: [new HumanMessage(task)] }, config);
    answer = result.messages.at(-1)?.text ?? "";
    log(`  ◀ assistant: ${answer}`);
  }
  const session = compaction.sessionOf("compiler-tour")!;
  return { session, compactions, answer };
}

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const name = process.env["LANGCHAIN_MODEL"];
  const models =
    name === undefined
      ? offlineModels()
      : { model: await initChatModel(name), summarizer: await initChatModel(name) };
  log(
    name === undefined
      ? "LANGCHAIN_MODEL is not set: an offline fake chat model plays Claude."
      : `Using ${name}.`,
  );
  const { session, compactions } = await runLangChainAgent({
    model: models.model,
    summarizer: models.summarizer,
    log,
  });
  log("");
  log(`Compactions: ${compactions.filter((event) => event.type === "compaction_end").length}.`);
  log(
    `The thread now holds ${session.messages.length} messages, about ${session.contextUsed} tokens.`,
  );
  const cost = session.cost;
  if (cost !== undefined)
    log(
      `Cost: ${cost.requests.count} requests, $${cost.total.cost.totalUsd.toFixed(4)} at Claude Haiku 5.5's prices.`,
    );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
