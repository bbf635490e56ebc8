import { join } from "node:path";
import ts from "typescript";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { CompactionEvent } from "../../src/index.js";
import { ROOT } from "./consumer-project.js";

// What each entry holds, read from the sources: the root keeps the contract and the session
// (a budget of names, so it does not grow back into everything), the stores and the archive sit
// in /store and /file-store, the Anthropic API's block in /anthropic, `Clock` in /testing.
const ENTRIES = {
  root: "src/index.ts",
  store: "src/store/index.ts",
  fileStore: "src/file-store/index.ts",
  anthropic: "src/anthropic/index.ts",
  testing: "src/testing/index.ts",
} as const;

const program = ts.createProgram(
  Object.values(ENTRIES).map((file) => join(ROOT, file)),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();

/** Every name an entry exports, types included. */
function exportedNames(entry: keyof typeof ENTRIES): string[] {
  const source = program.getSourceFile(join(ROOT, ENTRIES[entry]));
  const module = source && checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${ENTRIES[entry]}: no module`);
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

/** The names an entry exports at runtime. */
async function runtimeNames(entry: keyof typeof ENTRIES): Promise<string[]> {
  return Object.keys(await import(join(ROOT, ENTRIES[entry])));
}

/** The names ../shared/DESIGN.md fixes for the root entry. */
const CONTRACT = [
  "TurnId",
  "ContentBlock",
  "Message",
  "UserMessage",
  "AssistantMessage",
  "extractTurnIds",
  "MessageSchema",
  "CompactionResult",
  "Compactor",
  "AsyncCompactor",
  "ThresholdCompactor",
  "CompactionConfig",
  "REDACTION_NOTICE",
  "LLMCompactor",
  "LLMCompactorConfig",
  "DEFAULT_SUMMARY_PROMPT",
  "SUMMARY_PREFIX",
  "CompactorType",
  "createCompactor",
  "LlmClient",
  "AgentSession",
  "CompactionError",
  "ValidationError",
  "estimateTokens",
  "validateConversation",
];

const STORE = [
  "openSession",
  "StoredSession",
  "StoredSessionOptions",
  "DEFAULT_STORED_SESSION_OPTIONS",
  "StoredCompactionReport",
  "MemoryStore",
  "MemoryStoreOptions",
  "SessionStore",
  "StoredState",
  "StoredRecord",
  "StorePosition",
  "AppendResult",
  "MemoryArchive",
  "CompactionArchive",
  "ArchiveRecord",
];
const FILE_STORE = ["FileStore", "FileStoreOptions"];
const TESTING = ["Clock", "Timers"];
const ANTHROPIC_BLOCK = [
  "CompactionBlock",
  "COMPACTION_BLOCK_TYPE",
  "isCompactionBlock",
  "startsWithCompaction",
];

/**
 * The root's budget. Measured 2026-12-02: 101 names, 24 at runtime (before the split: 119
 * and 32); then 104 and 25, with the session interface, the interrupted-calls notice and two
 * events added, the Anthropic API's three report events and `Timers` moved to /anthropic and
 * /testing, and models and prices in /models; then 105 and 26 with withOverflowRecovery and its
 * options (the recovery's own result and session types, and ContextMeterState, are not root
 * names); 2026-12-02: 92 and 25, the archive to /store, `Clock` to /testing, and the events
 * named only as members of `CompactionEvent`; 2026-12-03: 85 and 25, the types a signature
 * already names (`MessageBase`, `CompactionStepResult`, `ConversationProblemCode`,
 * `CompactionTrigger`, `SummaryOverflow`, `BeforeCompactContext`, `BeforeCompactDecision`) no
 * longer root names. A name added to the root should be the contract's or the session's.
 */
const ROOT_BUDGET = { names: 85, runtime: 25 };

/** A member of the session's event union, named by its `type` (the root names the union alone). */
type EventOf<T extends CompactionEvent["type"]> = Extract<CompactionEvent, { type: T }>;

describe("the entries", () => {
  it("the root keeps the contract and the session, within its budget of names", async () => {
    const names = exportedNames("root");
    const runtime = await runtimeNames("root");
    expect(names).toEqual(expect.arrayContaining(CONTRACT));
    expect(names.length, `root: ${names.length} names`).toBeLessThanOrEqual(ROOT_BUDGET.names);
    expect(runtime.length, `root: ${runtime.length} at runtime`).toBeLessThanOrEqual(
      ROOT_BUDGET.runtime,
    );
  });

  it("the stores, the archive, the Anthropic block and the clock are in their own entries, not the root", () => {
    const root = exportedNames("root");
    const moved = [...STORE, ...FILE_STORE, ...ANTHROPIC_BLOCK, ...TESTING];
    expect(root.filter((name) => moved.includes(name))).toEqual([]);
    expect(exportedNames("store")).toEqual(expect.arrayContaining(STORE));
    expect(exportedNames("fileStore").sort()).toEqual([...FILE_STORE].sort());
    expect(exportedNames("anthropic")).toEqual(expect.arrayContaining(ANTHROPIC_BLOCK));
    expect(exportedNames("testing")).toEqual(expect.arrayContaining(TESTING));
  });

  it("each session event is typed through CompactionEvent by its type", () => {
    expect(exportedNames("root")).toContain("CompactionEvent");
    expectTypeOf<EventOf<"compaction_start">["contextUsed"]>().toEqualTypeOf<number>();
    expectTypeOf<EventOf<"compaction_end">["tokensAfter"]>().toEqualTypeOf<number>();
    expectTypeOf<EventOf<"compaction_failed">["consecutiveFailures"]>().toEqualTypeOf<number>();
    expectTypeOf<EventOf<"compaction_skipped">>().not.toBeNever();
    expectTypeOf<EventOf<"context_trimmed">>().not.toBeNever();
    expectTypeOf<EventOf<"context_overflow">>().not.toBeNever();
    expectTypeOf<EventOf<"content_clamped">>().not.toBeNever();
    expectTypeOf<EventOf<"tool_calls_interrupted">["toolUseIds"]>().not.toBeNever();
    expectTypeOf<EventOf<"context_window_warning">>().not.toBeNever();
  });
});
