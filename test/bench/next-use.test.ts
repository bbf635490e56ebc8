import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extractiveClient, extractiveSummary } from "../../bench/extractive-summarizer.js";
import {
  hasToken,
  nextUseReferences,
  type ReferenceKind,
  referenceCandidates,
} from "../../bench/next-use.js";
import { costAt, PrefixBill, requestUnits } from "../../bench/prefix-bill.js";
import {
  DEFAULT_REALDATA,
  REAL_RUN_PRESETS,
  replayRealRun,
  replayRealRuns,
} from "../../bench/real-runs.js";
import { realRunTargets, realRunTotals } from "../../bench/real-runs-report.js";
import type { RecordedRun } from "../../bench/replay.js";
import { apiProblems, ThinkingBindings, type WireMessage } from "../../bench/request-checks.js";
import { requestTexts, withoutMentions } from "../../bench/request-texts.js";
import { SECTION_HEADING as FACTS_HEADING } from "../../src/compactors/facts-check.js";
import { LEDGER_HEADING } from "../../src/compactors/file-ledger.js";
import { SUMMARY_PREFIX } from "../../src/index.js";

const candidatesOf = (text: string) => {
  const found = new Map<string, ReferenceKind>();
  referenceCandidates(text, found);
  return Object.fromEntries(found);
};

describe("reference candidates", () => {
  it("finds paths, identifiers, dotted names, numbers of 4+ digits and quoted strings", () => {
    expect(
      candidatesOf(
        "Open src/app/main.ts and ~/Code/tool/run, call retryCount on lib.AgentSession, see " +
          'notify-session-end.sh, issue 12345 (not 123), grep "connection refused" or `npm run build`.',
      ),
    ).toEqual({
      "src/app/main.ts": "path",
      "~/Code/tool/run": "path",
      retryCount: "identifier",
      AgentSession: "identifier",
      "lib.AgentSession": "dotted",
      "notify-session-end.sh": "dotted",
      "main.ts": "dotted",
      "12345": "number",
      "connection refused": "quoted",
      "npm run build": "quoted",
    });
  });

  it("leaves out what is not specific: plain words, short segments, one slash without an extension", () => {
    expect(candidatesOf("lowercase words, a.b, x.y.z, src/lib, 42 and 999, 'short', //")).toEqual(
      {},
    );
  });

  it("matches a token only where it is not glued to a word character", () => {
    expect(hasToken("call fooBar() now", "fooBar")).toBe(true);
    expect(hasToken("call xfooBar now", "fooBar")).toBe(false);
    expect(hasToken("see src/a.tsx", "src/a.ts")).toBe(false);
    expect(hasToken("see src/a.tsx and src/a.ts.", "src/a.ts")).toBe(true);
    // A needle that starts or ends with a non-word character may touch a word there.
    expect(hasToken("x/src/", "/src/")).toBe(true);
    expect(hasToken("anything", "")).toBe(false);
  });
});

describe("next-use references of a run", () => {
  it("keeps, per reply, what a tool result or the user gave earlier, each in its most specific form", () => {
    const run: RecordedRun = {
      messages: [
        { role: "user", content: "Fix retryCount in src/app/main.ts" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading src/app/main.ts (main.ts) for retryCount." },
            { type: "tool_use", id: "t1", name: "read", input: { path: "src/app/main.ts" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "const maxBackoffMs = 25000;" },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "text", text: "maxBackoffMs is 25000; newHelperName will wrap it." }],
        },
      ],
    };
    const references = nextUseReferences(run);
    expect(references.perRequest).toEqual([
      [
        { text: "src/app/main.ts", kind: "path" },
        { text: "retryCount", kind: "identifier" },
      ],
      [
        { text: "maxBackoffMs", kind: "identifier" },
        { text: "25000", kind: "number" },
      ],
    ]);
    expect(references.total).toBe(4);
    expect(references.candidates).toBe(6);
  });
});

describe("the request's text, whole and strict", () => {
  const originals = new Map([
    ["t1", "full output naming src/kept.ts"],
    ["t2", "output as recorded (mentions: src/own.ts)"],
  ]);
  const request: WireMessage[] = [
    { role: "user", content: `${LEDGER_HEADING}\n- read src/ledger.ts` },
    {
      role: "user",
      content: [
        {
          type: "text",
          text: `${SUMMARY_PREFIX}Worked on it.\nFiles: src/files-line.ts\n${FACTS_HEADING}\n- path: src/fact-path.ts\n- id: factIdentifier\n- constraint: keep src/constraint.ts`,
        },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "tool_use", id: "t1", name: "read", input: { path: "src/input.ts" } },
        { type: "tool_use", id: "t2", name: "read", input: {} },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "t1",
          content: "[output removed] (mentions: src/mentioned.ts) [recall abc]",
        },
        {
          type: "tool_result",
          tool_use_id: "t2",
          content: "output as recorded (mentions: src/own.ts)",
        },
      ],
    },
  ];
  const texts = requestTexts("system names src/system.ts", request, originals);

  it("has every reference in the whole text", () => {
    for (const path of ["ledger", "files-line", "fact-path", "mentioned", "own", "input", "system"])
      expect(hasToken(texts.full, `src/${path}.ts`), path).toBe(true);
  });

  it("leaves out the library's bare lists, and only those, from the strict text", () => {
    for (const path of ["ledger", "files-line", "fact-path", "mentioned"])
      expect(hasToken(texts.strict, `src/${path}.ts`), path).toBe(false);
    expect(hasToken(texts.strict, "factIdentifier")).toBe(false);
    // A constraint line, a result the library left alone, tool inputs and the system stay.
    for (const path of ["constraint", "own", "input", "system"])
      expect(hasToken(texts.strict, `src/${path}.ts`), path).toBe(true);
    expect(texts.strict).toContain("[output removed] [recall abc]");
  });
});

describe("a placeholder's mentions", () => {
  it("are cut up to the recall call, or to the last parenthesis", () => {
    expect(withoutMentions("gone (mentions: a/b.ts, c/d.ts) [recall x]")).toBe("gone [recall x]");
    expect(withoutMentions("gone (mentions: a/b.ts) end")).toBe("gone end");
    expect(withoutMentions("nothing listed")).toBe("nothing listed");
  });
});

describe("the Messages API's view of a request", () => {
  const use = (id: string) => ({ type: "tool_use", id, name: "run", input: {} });
  const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });

  it("finds orphan results, results after text, unanswered calls and a first assistant message", () => {
    expect(
      apiProblems([
        { role: "user", content: "go" },
        { role: "assistant", content: [use("a"), use("b")] },
        { role: "user", content: [result("a"), result("b")] },
      ]),
    ).toEqual([]);
    expect(
      apiProblems([
        { role: "assistant", content: [use("a")] },
        { role: "user", content: [{ type: "text", text: "x" }, result("a"), result("z")] },
        { role: "assistant", content: [use("c")] },
        { role: "user", content: "no result" },
      ]),
    ).toEqual([
      "first message not user",
      "result after text a",
      "orphan result z",
      "result after text z",
      "unanswered c",
    ]);
    expect(apiProblems([])).toEqual(["empty"]);
  });

  it("fails a thinking block sent after a prefix other than the one it was written after", () => {
    const thinking = { type: "thinking", thinking: "plan", signature: "s" };
    const written: WireMessage[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: [thinking, use("a")] },
    ];
    const bindings = new ThinkingBindings();
    bindings.bind(written, "system");
    const next = [...written, { role: "user", content: [result("a")] }];
    expect(bindings.failures(next, "system")).toBe(0);
    expect(bindings.failures(next, "another system")).toBe(1);
    const edited = [{ role: "user", content: "another task" }, ...next.slice(1)];
    expect(bindings.failures(edited, "system")).toBe(1);
    // A cache_control marker and a split same-role message are the same request to the API.
    const marked = [
      {
        role: "user",
        content: [{ type: "text", text: "task", cache_control: { type: "ephemeral" } }],
      },
      ...next.slice(1),
    ];
    expect(bindings.failures(marked, "system")).toBe(0);
  });
});

describe("the prefix-cache bill", () => {
  const user = (text: string): WireMessage => ({ role: "user", content: text });
  const assistant = (text: string): WireMessage => ({ role: "assistant", content: text });

  it("reads the longest leading run of units shared with the last agent request or a summary since", () => {
    const bill = new PrefixBill("SYSTEM");
    const first = [user("aaaa")];
    const block = (text: string) => JSON.stringify({ type: "text", text }).length;
    bill.agentRequest(first);
    expect(bill.bill).toMatchObject({ read: 0, write: 6 + block("aaaa") });
    bill.agentRequest([...first, assistant("bb"), user("cc")]);
    expect(bill.bill.read).toBe(6 + block("aaaa"));
    expect(bill.bill.write).toBe(6 + block("aaaa") + block("bb") + block("cc"));
    // A summary request sent as the conversation reads the agent's request and writes the instruction.
    bill.summaryRequest("SYSTEM", [...first, assistant("bb"), user("cc"), user("sum")], 40);
    expect(bill.bill).toMatchObject({
      summaryRead: 6 + block("aaaa") + block("bb") + block("cc"),
      summaryWrite: block("sum"),
      summaryCalls: 1,
      output: 10,
    });
    // The next agent request shares a unit run with the summary request and reads it.
    const before = bill.bill.read;
    bill.agentRequest([...first, assistant("bb"), user("cc"), user("sum"), assistant("x")]);
    expect(bill.bill.read - before).toBe(
      6 + block("aaaa") + block("bb") + block("cc") + block("sum"),
    );
  });

  it("merges same-role neighbours into one message of units, and prices reads, writes and output", () => {
    expect(requestUnits("", [user("a"), user("b")]).units).toEqual([
      "system:",
      "role:user",
      '{"type":"text","text":"a"}',
      '{"type":"text","text":"b"}',
    ]);
    const bill = {
      read: 400,
      write: 40,
      output: 2,
      summaryRead: 0,
      summaryWrite: 0,
      summaryCalls: 0,
    };
    expect(costAt(bill, 0.1)).toBe((0.1 * 400 + 1.25 * 40) / 4 + 5 * 2);
    expect(costAt(bill, 0.025)).toBe((0.025 * 400 + 1.25 * 40) / 4 + 5 * 2);
  });
});

describe("the stand-in summarizer", () => {
  it("keeps the user's and rule-like lines and lists the paths, within its budget", () => {
    const text =
      "[User] fix it\nnoise line\nyou must not push\n<tool_output>\n/home/u/a.ts\n</tool_output>";
    expect(extractiveSummary(text)).toBe(
      "Summary of earlier work.\n[User] fix it\nyou must not push\nFiles: /home/u/a.ts",
    );
    expect(extractiveSummary(text, 5)).toBe("Summary of earlier w");
  });

  it("bills a conversation request on the agent's cache, with the agent's system prompt", async () => {
    const bill = new PrefixBill("AGENT");
    const client = extractiveClient(bill, { acceptsConversation: true });
    expect(client.acceptsConversation).toBe(true);
    const summary = await client.complete({
      prompt: "Summarize.",
      system: "You summarize.",
      conversation: [],
    });
    expect(summary).toBe("Summary of earlier work.\n\nFiles: ");
    const instruction = JSON.stringify({ type: "text", text: "You summarize.\n\nSummarize." });
    expect(bill.bill).toMatchObject({ summaryCalls: 1, summaryWrite: 5 + instruction.length });
    const transcript = extractiveClient(new PrefixBill("AGENT"));
    expect(transcript.acceptsConversation).toBeUndefined();
  });
});

describe("the real-runs part on a hand-made run", () => {
  const run: RecordedRun = {
    system: "You are an agent.",
    messages: [
      { role: "user", content: "Rename retryCount in src/app/main.ts" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "t1", name: "read", input: { path: "src/app/main.ts" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "let retryCount = 3;" }],
      },
      { role: "assistant", content: "Renamed retryCount in src/app/main.ts." },
    ],
  };

  it("measures every request and bills it, each strategy against trim-only", async () => {
    const references = nextUseReferences(run);
    const results = [];
    for (const preset of REAL_RUN_PRESETS)
      results.push(await replayRealRun("tiny", run, references, preset, 64_000));
    for (const result of results) {
      expect(result).toMatchObject({
        run: "tiny",
        requests: 2,
        overWindow: 0,
        invalid: 0,
        prefixFailures: 0,
        compactions: 0,
        references: references.total,
        kept: references.total,
        strict: references.total,
      });
      expect(result.bill.read).toBeGreaterThan(0);
    }
    const totals = realRunTotals(results);
    expect(totals.map((total) => total.strategy)).toEqual(REAL_RUN_PRESETS.map(({ name }) => name));
    for (const total of totals) expect(total.cost).toEqual(total.trimCost);
    // A window the first request does not fit: counted over, and the over-window target fails.
    const over = await replayRealRun("tiny", run, references, REAL_RUN_PRESETS[0]!, 10);
    expect(over.overWindow).toBe(2);
    const checks = realRunTargets({
      directory: "x",
      window: 10,
      strategies: [{ name: "trim", description: "", targets: false }],
      runs: [],
      results: [over],
    });
    expect(checks.map((check) => check.pass)).toEqual([false]);
  });
});

// The shared real runs: CI has ../shared; a fresh clone without it skips, and CI without it fails.
const REALDATA = process.env["REALDATA_DIR"] ?? DEFAULT_REALDATA;
const HAVE_DATA = existsSync(REALDATA);
const IN_CI = !["", "0", "false", undefined].includes(process.env["CI"]);

it.runIf(IN_CI)("the real runs are there in CI (../shared/realdata)", () => {
  expect(existsSync(REALDATA), REALDATA).toBe(true);
});

describe.skipIf(!HAVE_DATA)(`the real-runs part on ${REALDATA}`, () => {
  it("default and summaries: no request over the window, invalid or failing the thinking check", async () => {
    const presets = REAL_RUN_PRESETS.filter(({ name }) => ["default", "summaries"].includes(name));
    expect(presets).toHaveLength(2);
    const { results, runs } = await replayRealRuns({
      directory: REALDATA,
      window: 64_000,
      presets,
    });
    expect(runs.length).toBeGreaterThanOrEqual(7);
    expect(results).toHaveLength(2 * runs.length);
    for (const result of results) {
      const where = `${result.strategy} on ${result.run}`;
      expect(result.overWindow, where).toBe(0);
      expect(result.invalid, where).toBe(0);
      expect(result.prefixFailures, where).toBe(0);
      expect(result.errors, where).toBe(0);
    }
    // Not vacuous: both compacted somewhere.
    for (const name of ["default", "summaries"])
      expect(
        results.some((r) => r.strategy === name && r.compactions > 0),
        name,
      ).toBe(true);
  }, 300_000);
});
