/**
 * Retention (issue 23, part 4): what a session still holds of the user's constraints and of the
 * file paths after long runs. Simulated runs report the planted constraints and paths found in
 * the final request; real runs (`--trajectories DIR`) report the files the agent edited and the
 * paths it touched (both read from tool inputs by the file ledger's own rules) that the final
 * request still names.
 *
 *   npx tsx bench/retention.ts [--steps 500,2000] [--shapes short-turns,long-turn]
 *                              [--strategies default,llm,...] [--trajectories DIR] [--window N]
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { roughTokens } from "../examples/support/messages-api-server.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../src/anthropic/index.js";
import { fileActions, type LedgerState, newLedgerState } from "../src/compactors/file-ledger.js";
import {
  AgentSession,
  type AgentSessionOptions,
  HybridCompactor,
  LLMCompactor,
  type Message,
} from "../src/index.js";
import { simulate } from "./simulate.js";
import { STRATEGIES } from "./strategies.js";
import { createSummariser } from "./summariser.js";
import { generateTrajectory, type WorkloadShape } from "./workload.js";

const SEED = 20_260_101;
const argv = process.argv.slice(2);
function option(name: string): string | undefined {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
}
const list = (value: string | undefined, fallback: string) => (value ?? fallback).split(",");
const percent = (kept: number, total: number) =>
  total === 0 ? "-" : `${((kept / total) * 100).toFixed(1)}%`;
const print = (text: string) => process.stdout.write(`${text}\n`);

async function simulated(): Promise<void> {
  const steps = list(option("--steps"), "500,2000").map(Number);
  const shapes = list(option("--shapes"), "short-turns") as WorkloadShape[];
  const names = list(option("--strategies"), "default,llm,mask+llm,llm→50%,hybrid");
  print(
    "| run | strategy | constraints kept | paths kept | trims | compactions | billed input | cost $ |",
  );
  print("|---|---|---:|---:|---:|---:|---:|---:|");
  for (const shape of shapes) {
    for (const count of steps) {
      const trajectory = generateTrajectory({ steps: count, shape, seed: SEED });
      for (const strategy of STRATEGIES.filter((each) => names.includes(each.name))) {
        const run = await simulate(trajectory, strategy);
        const { constraint, path } = run.factsKeptByKind;
        print(
          `| ${shape} ${count} | ${strategy.name} | ${constraint.kept}/${constraint.planted} ` +
            `${percent(constraint.kept, constraint.planted)} | ${path.kept}/${path.planted} ` +
            `${percent(path.kept, path.planted)} | ${run.trims} | ${run.compactions} | ` +
            `${(run.billedInputTokens / 1e6).toFixed(2)}M | ${run.costUsd.toFixed(2)} |`,
        );
      }
    }
  }
}

interface RecordedRun {
  messages: { role: "user" | "assistant"; content: string | Record<string, unknown>[] }[];
}

const REPLAYED: Record<string, () => Partial<AgentSessionOptions>> = {
  default: () => ({}),
  hybrid: () => ({ compactor: new HybridCompactor({ client: createSummariser().client }) }),
  llm: () => ({
    llmCompactor: new LLMCompactor(createSummariser().client, {
      keepRecentTurns: 1,
      targetUtilization: 0.5,
    }),
  }),
};

function toOurs(content: Record<string, unknown>[]) {
  return content.map((block) => {
    if (block.type === "tool_result") {
      const raw = block.content;
      return {
        type: "tool_result" as const,
        toolUseId: String(block.tool_use_id),
        content: typeof raw === "string" ? raw : JSON.stringify(raw ?? ""),
        isError: block.is_error === true,
      };
    }
    if (block.type === "text") return { type: "text" as const, text: String(block.text) || " " };
    return { type: "opaque" as const, block: block as never };
  });
}

function requestText(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((message) => message.content));
}

async function replay(file: string, strategy: string, window: number): Promise<string> {
  const run = JSON.parse(readFileSync(file, "utf8")) as RecordedRun;
  let tick = Date.UTC(2026, 0, 1);
  const clock = () => {
    tick += 1000;
    return new Date(tick);
  };
  const session = new AgentSession({
    contextLimit: window,
    sessionId: `retention-${strategy}`,
    clock,
    ...REPLAYED[strategy]!(),
  });
  const state: LedgerState = newLedgerState();
  const edited = new Set<string>();
  const touched = new Set<string>();
  let turn = 0;
  let ids = 0;
  for (const recorded of run.messages) {
    const content =
      typeof recorded.content === "string"
        ? [{ type: "text", text: recorded.content }]
        : recorded.content;
    if (recorded.role === "user") {
      if (!content.some((block) => block.type === "tool_result")) turn += 1;
      ids += 1;
      session.append({
        role: "user",
        id: `replay-${ids}`,
        sessionId: session.sessionId,
        turnId: { owner: "u", number: Math.max(turn, 1) },
        createdAt: clock(),
        content: toOurs(content),
      } as Message);
      continue;
    }
    await session.maybeCompact();
    const reply = content.filter(
      (block) => block.type !== "thinking" && block.type !== "redacted_thinking",
    );
    for (const block of reply) {
      if (block.type !== "tool_use") continue;
      for (const action of fileActions(block.name as string, block.input as never, state)) {
        touched.add(action.path);
        if (action.action !== "read") edited.add(action.path);
      }
    }
    appendAnthropicResponse(session, {
      content: (reply.length === 0 ? [{ type: "text", text: "…" }] : reply) as never,
      usage: {
        input_tokens: roughTokens({ messages: toAnthropicMessages(session.messages) }),
        output_tokens: roughTokens(reply),
      },
    });
  }
  await session.maybeCompact();
  const text = requestText(session.messages);
  if (process.env.RETENTION_DEBUG)
    process.stderr.write(
      `${basename(file)} ${strategy}: ${session.messages.length} messages, ${text.length} chars\n`,
    );
  const keptOf = (paths: Set<string>) =>
    [...paths].filter((path) => text.includes(JSON.stringify(path).slice(1, -1))).length;
  return (
    `| ${basename(file)} | ${strategy} | ${keptOf(edited)}/${edited.size} ${percent(keptOf(edited), edited.size)} ` +
    `| ${keptOf(touched)}/${touched.size} ${percent(keptOf(touched), touched.size)} |`
  );
}

async function real(directory: string): Promise<void> {
  const { readdirSync } = await import("node:fs");
  const window = Number(option("--window") ?? 64_000);
  const names = list(option("--strategies"), "default,hybrid,llm");
  print(`Real runs, ${window}-token window`);
  print("| run | strategy | edited files kept | touched paths kept |");
  print("|---|---|---:|---:|");
  for (const name of readdirSync(directory)
    .filter((each) => each.endsWith(".json"))
    .sort())
    for (const strategy of names) print(await replay(`${directory}/${name}`, strategy, window));
}

const directory = option("--trajectories");
if (directory === undefined) await simulated();
else await real(directory);
