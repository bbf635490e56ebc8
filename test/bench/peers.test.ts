import { describe, expect, it } from "vitest";
import {
  buildPeerConversation,
  buildPeerWorkload,
  countLangChainTokens,
  measurePeers,
  medianProcessRow,
  PEER_HEADERS,
  type PeerResults,
  type PeerRow,
  peerOutcomeLines,
  peerRows,
  processRatioLines,
  toLangChainMessages,
  toModelMessages,
} from "../../bench/peers.js";
import { benchReadme, readmeSummary, SUMMARY_MAX_LINES } from "../../bench/readme.js";
import { peerTargets } from "../../bench/targets.js";
import { validateConversation } from "../../src/index.js";
import { floorRow, peerRow } from "../support/peer-row.js";

describe("the peer workload", () => {
  it("is a valid conversation of exactly the size asked, the same on every build", () => {
    const conversation = buildPeerConversation(300);
    expect(conversation).toHaveLength(300);
    expect(validateConversation(conversation)).toEqual([]);
    expect(conversation.at(-1)?.role).toBe("assistant");
    expect(JSON.stringify(buildPeerConversation(300))).toBe(JSON.stringify(conversation));
    expect(() => buildPeerConversation(301)).toThrow(/even/);
  });

  it("converts one message for one, tool results to tool messages", () => {
    const conversation = buildPeerConversation(200);
    const model = toModelMessages(conversation);
    const langchain = toLangChainMessages(conversation);
    expect(model).toHaveLength(conversation.length);
    expect(langchain).toHaveLength(conversation.length);
    const results = conversation.flatMap((message) =>
      message.content.filter((block) => block.type === "tool_result"),
    );
    expect(model.filter((message) => message.role === "tool")).toHaveLength(results.length);
    const call = model.find(
      (message) => message.role === "assistant" && message.content.length > 1,
    );
    expect(call).toMatchObject({ content: [{ type: "text" }, { type: "tool-call" }] });
    expect(countLangChainTokens(langchain)).toBeGreaterThan(
      countLangChainTokens(langchain.slice(1)),
    );
  });

  it("sizes the peers' settings to the last 3 turns", () => {
    const workload = buildPeerWorkload(400);
    const lastThree = workload.modelMessages.slice(-workload.pruneKeepLast);
    expect(lastThree[0]?.role).toBe("user");
    expect(lastThree.filter((message) => message.role === "user")).toHaveLength(3);
    expect(workload.trimMaxTokens).toBeLessThan(countLangChainTokens(workload.langchainMessages));
  });
});

describe("measurePeers", () => {
  it("has the three do the same job (no timing assertions)", async () => {
    const rows = await measurePeers({
      sizes: [200, 400],
      samples: () => 1,
      warmUps: () => 0,
      minWarmUpMs: 0,
    });
    expect(rows.map((row) => row.messages)).toEqual([200, 400]);
    for (const row of rows) {
      const { ours, pruneMessages, trimMessages } = row.outcome;
      expect(ours.messages).toBe(row.messages);
      expect(ours.fullToolResults).toBeGreaterThan(0);
      expect(pruneMessages.fullToolResults).toBe(ours.fullToolResults);
      expect(trimMessages?.fullToolResults).toBe(ours.fullToolResults);
      // Ours through the LangChain adapter: the same job on LangChain's messages.
      expect(row.outcome.oursLangChain).toEqual(ours);
      expect(Number.isFinite(row.oursLangChain?.medianMs)).toBe(true);
      expect(pruneMessages.messages).toBeLessThan(row.messages);
      // trimMessages keeps exactly the messages of the last 3 turns: pruneMessages' N.
      expect(trimMessages?.messages).toBe(Number(/\d+/.exec(row.settings.pruneToolCalls)?.[0]));
      expect(row.ours.samples).toBe(1);
      expect(Number.isFinite(row.oursFresh.medianMs)).toBe(true);
      expect(Number.isFinite(row.oursNewArray.medianMs)).toBe(true);
      expect(row.settings.pruneToolCalls).toMatch(/^before-last-\d+-messages$/);
    }
    expect(peerRows(rows)[0]).toHaveLength(PEER_HEADERS.length);
    expect(peerOutcomeLines(rows)[1]).toContain("400 messages");
    expect(peerTargets(rows)).toEqual([]);
  });

  it("skips trimMessages where its quadratic time is estimated over the budget", async () => {
    const rows = await measurePeers({
      sizes: [100, 1000],
      samples: () => 1,
      warmUps: () => 0,
      minWarmUpMs: 0,
      trimBudgetMs: 0,
    });
    expect(rows[0]?.trimMessages).toBeDefined();
    expect(rows[1]?.trimMessages).toBeUndefined();
    expect(rows[1]?.trimSkipped).toMatch(/budget/);
    expect(peerRows(rows)[1]?.[3]).toBe("skipped");
  });
});

describe("medianProcessRow", () => {
  const row = (ours: number, prune: number): PeerRow => peerRow({ ours, prune });

  it("keeps the process whose ours/prune ratio is the median, and records every ratio", () => {
    // Ratios 0.6, 0.4 and 0.5: not the fastest ours (1 ms), not the slowest prune (5 ms).
    const chosen = medianProcessRow([row(3, 5), row(1, 2.5), row(2, 4)]);
    expect(chosen.ours.medianMs).toBe(2);
    expect(chosen.processRatios).toEqual([0.4, 0.5, 0.6]);
    expect(processRatioLines([chosen])).toEqual([
      "10000 messages: ours/prune 0.40x, 0.50x, 0.60x in 3 processes (the row is the median one)",
    ]);
    expect(medianProcessRow([row(1, 2), row(3, 2)]).ours.medianMs).toBe(1);
  });

  it("leaves a single process's row as it is", () => {
    const only = row(1, 2);
    expect(medianProcessRow([only])).toBe(only);
    expect(processRatioLines([only])).toEqual([]);
    expect(() => medianProcessRow([])).toThrow(/no rows/);
  });
});

describe("the bench README and its summary", () => {
  it("summarises in a few lines without target checks, and documents everything", async () => {
    const rows = await measurePeers({
      sizes: [200],
      samples: () => 1,
      warmUps: () => 0,
      minWarmUpMs: 0,
    });
    const environment = { node: "v20", platform: "linux x64", cpus: 2, cpuModel: "CPU" };
    const peers: PeerResults = {
      environment,
      loadAverage: { before: [0.5], after: [0.7] },
      versions: { ai: "6", "@langchain/core": "1" },
      rows,
      floors: [floorRow(200, 1, 0.5)],
    };
    const input = {
      runs: [],
      speed: [],
      peers,
      targets: [{ target: "a target", measured: "1x", pass: false }],
      environment,
    };
    const summary = readmeSummary(input);
    expect(summary.trimEnd().split("\n").length).toBeLessThanOrEqual(SUMMARY_MAX_LINES);
    expect(summary).not.toMatch(/PASS|FAIL/);
    expect(summary).toContain("bench/README.md");
    expect(summary).toContain("pruneMessages");
    const readme = benchReadme(input);
    expect(readme).toContain("## Reproduce");
    expect(readme).toContain("## Part 3: against the peers");
    expect(readme).toContain("### Linear?");
    expect(readme).toContain(
      "| messages | ours | copy floor | ours/copy floor | ours again | read floor |",
    );
    expect(readme).toContain("FAIL  a target: 1x");
  });
});
