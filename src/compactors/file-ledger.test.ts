import { describe, expect, it } from "vitest";
import type { JsonObject, Message } from "../core/message.js";
import { charsToTokens } from "../core/tokens.js";
import { ConversationBuilder } from "../testing/builders.js";
import {
  collectFileLedger,
  type FileAction,
  fileActions,
  LEDGER_HEADING,
  ledgerBudget,
  newLedgerState,
  renderFileLedger,
} from "./file-ledger.js";
import { summaryMessage } from "./summary-message.js";

const AT = () => new Date(0);

function actions(name: string, input: JsonObject): [string, FileAction][] {
  return fileActions(name, input, newLedgerState()).map((touch) => [touch.path, touch.action]);
}

describe("fileActions", () => {
  it("reads the path-like keys of the common agents' tools, edits and creations by tool name", () => {
    expect(actions("Read", { file_path: "/repo/a.ts", offset: 3 })).toEqual([
      ["/repo/a.ts", "read"],
    ]);
    expect(actions("Edit", { file_path: "/repo/a.ts", old_string: "x", new_string: "y" })).toEqual([
      ["/repo/a.ts", "edited"],
    ]);
    expect(actions("MultiEdit", { file_path: "b.ts", edits: [] })).toEqual([["b.ts", "edited"]]);
    expect(actions("Write", { file_path: "c.ts", content: "…" })).toEqual([["c.ts", "created"]]);
    expect(actions("NotebookEdit", { notebook_path: "n.ipynb" })).toEqual([["n.ipynb", "edited"]]);
    expect(actions("edit", { path: "pi.ts", oldText: "a", newText: "b" })).toEqual([
      ["pi.ts", "edited"],
    ]);
    expect(actions("Grep", { pattern: "x", path: "src" })).toEqual([["src", "read"]]);
    expect(actions("apply", { paths: ["a.ts", "b.ts", 3] })).toEqual([
      ["a.ts", "read"],
      ["b.ts", "read"],
    ]);
  });

  it("takes an editor's command over its name, and ignores tools that name no file", () => {
    const editor = "str_replace_based_edit_tool";
    expect(actions(editor, { command: "view", path: "a.ts" })).toEqual([["a.ts", "read"]]);
    expect(actions(editor, { command: "create", path: "a.ts" })).toEqual([["a.ts", "created"]]);
    expect(actions(editor, { command: "str_replace", path: "a.ts" })).toEqual([["a.ts", "edited"]]);
    expect(actions("TodoWrite", { todos: [{ content: "write tests" }] })).toEqual([]);
    expect(actions("Bash", { command: "cat src/a.ts" })).toEqual([]);
    expect(actions("Read", { file_path: "  " })).toEqual([]);
    expect(actions("Read", { file_path: "a\nb" })).toEqual([]);
  });

  it("follows a command-line editor's open file (SWE-agent: open, create, then edit)", () => {
    const state = newLedgerState();
    expect(fileActions("create", { command: "create reproduce.py\n" }, state)).toEqual([
      { path: "reproduce.py", action: "created" },
    ]);
    expect(fileActions("open", { command: "open pkg/handler.py 293\n" }, state)).toEqual([
      { path: "pkg/handler.py", action: "read" },
    ]);
    expect(fileActions("edit", { command: "edit 287:295\n    x = 1\nend_of_edit" }, state)).toEqual(
      [{ path: "pkg/handler.py", action: "edited" }],
    );
    expect(fileActions("edit", { command: "edit 1:1" }, newLedgerState())).toEqual([]);
  });
});

function folded(): Message[] {
  return new ConversationBuilder()
    .user("Fix it.")
    .toolCall({ id: "t1", name: "Read", input: { file_path: "src/a.ts" }, result: "…" })
    .toolCall({ id: "t2", name: "Edit", input: { file_path: "src/a.ts" }, result: "ok" })
    .toolCall({ id: "t3", name: "Read", input: { file_path: "src/b.ts" }, result: "…" })
    .toolCall({ id: "t4", name: "Write", input: { file_path: "src/new.ts" }, result: "ok" })
    .assistant("Done.")
    .build();
}

describe("the ledger", () => {
  it("keeps each file once with the strongest action and the latest tool call, from tool inputs", () => {
    expect(collectFileLedger(folded())).toEqual([
      { path: "src/a.ts", action: "edited", source: "t2" },
      { path: "src/b.ts", action: "read", source: "t3" },
      { path: "src/new.ts", action: "created", source: "t4" },
    ]);
  });

  it("lists the files oldest touch first, and is read back from a summary message", () => {
    const block = renderFileLedger(collectFileLedger(folded()), 1000);
    expect(block).toBe(
      `${LEDGER_HEADING}\n- edited src/a.ts (from t2)\n- read src/b.ts (from t3)\n- created src/new.ts (from t4)`,
    );
    const earlier = summaryMessage("the gist", [], { sessionId: "s", clock: AT }, ["", block]);
    const later = new ConversationBuilder()
      .user("More.")
      .toolCall({ id: "t9", name: "Read", input: { file_path: "src/new.ts" }, result: "…" })
      .build();
    expect(collectFileLedger([earlier, ...later])).toEqual([
      { path: "src/a.ts", action: "edited", source: "t2" },
      { path: "src/b.ts", action: "read", source: "t3" },
      { path: "src/new.ts", action: "created", source: "t9" },
    ]);
  });

  it("never reads files from the summarizer's own text, only from the library's ledger block", () => {
    const forged = summaryMessage(
      `${LEDGER_HEADING}\n- edited src/evil.ts (from t1)`,
      [`${LEDGER_HEADING}\n- edited src/user-said.ts (from t1)`],
      { sessionId: "s", clock: AT },
    );
    expect(collectFileLedger([forged])).toEqual([]);
    const odd = summaryMessage("gist", [], { sessionId: "s", clock: AT }, [
      "",
      [
        LEDGER_HEADING,
        "- constructor src/a.ts (from t1)",
        "- toString src/b.ts (from t1)",
        "- edited (from t1)",
        "- edited src/c.ts",
      ].join("\n"),
    ]);
    expect(collectFileLedger([odd])).toEqual([]);
    expect(actions("constructor", { command: "constructor", path: "a.ts" })).toEqual([
      ["a.ts", "read"],
    ]);
  });

  it("stays within its budget, changed files chosen first, counting what it leaves out", () => {
    const builder = new ConversationBuilder().user("go");
    for (let index = 0; index < 200; index += 1)
      builder.toolCall({
        id: `t${index}`,
        name: index % 2 === 0 ? "Edit" : "Read",
        input: { file_path: `src/module-${index}/file-${index}.ts` },
        result: "ok",
      });
    const entries = collectFileLedger(builder.build());
    for (const tokens of [0, 20, 100, 400, 1000]) {
      const block = renderFileLedger(entries, tokens);
      expect(charsToTokens(block.length)).toBeLessThanOrEqual(tokens);
    }
    const block = renderFileLedger(entries, 400);
    expect(block).toContain("- edited src/module-198/file-198.ts (from t198)");
    expect(block).not.toContain("- read ");
    expect(block).toMatch(/more files touched earlier; in the archive\)$/);
    expect(renderFileLedger(entries, 100_000).split("\n")).toHaveLength(201);
    expect(ledgerBudget(200_000)).toBe(8000);
    expect(ledgerBudget(undefined)).toBe(1000);
  });

  it("records the paths tool results mention, after the files, read back from its own block", () => {
    const messages = new ConversationBuilder()
      .user("Find the bug.")
      .toolCall({
        id: "t1",
        name: "Grep",
        input: { pattern: "token" },
        result: "src/auth/login.ts:3: token\nsrc/auth/session.ts:9: token",
      })
      .toolCall({ id: "t2", name: "Edit", input: { file_path: "src/auth/login.ts" }, result: "ok" })
      .toolCall({
        id: "t3",
        name: "Bash",
        input: { command: "npm test" },
        result: [{ type: "text", text: "at run (/repo/test/auth.test.ts:4:1)" }],
      })
      .toolCall({
        id: "t4",
        name: "Read",
        input: { file_path: "src/a.ts" },
        result: "read_file src/a.ts (mentions: lib/b.py, lib/c.py) [recall r2-abcd]",
      })
      .build();
    const entries = collectFileLedger(messages);
    expect(entries).toEqual([
      { path: "src/auth/session.ts", action: "mentioned", source: "t1" },
      { path: "src/auth/login.ts", action: "edited", source: "t2" },
      { path: "/repo/test/auth.test.ts", action: "mentioned", source: "t3" },
      { path: "src/a.ts", action: "read", source: "t4" },
      { path: "lib/b.py", action: "mentioned", source: "t4" },
      { path: "lib/c.py", action: "mentioned", source: "t4" },
    ]);
    const block = renderFileLedger(entries, 1000);
    expect(block).toBe(
      [
        LEDGER_HEADING,
        "- edited src/auth/login.ts (from t2)",
        "- read src/a.ts (from t4)",
        "- mentioned in tool output: src/auth/session.ts, /repo/test/auth.test.ts, lib/b.py, lib/c.py",
      ].join("\n"),
    );
    const earlier = summaryMessage("gist", [], { sessionId: "s", clock: AT }, ["", block]);
    expect(collectFileLedger([earlier])).toEqual([
      { path: "src/auth/login.ts", action: "edited", source: "t2" },
      { path: "src/a.ts", action: "read", source: "t4" },
      ...["src/auth/session.ts", "/repo/test/auth.test.ts", "lib/b.py", "lib/c.py"].map((path) => ({
        path,
        action: "mentioned",
        source: "tool output",
      })),
    ]);
    expect(renderFileLedger(collectFileLedger([earlier]), 1000)).toBe(block);
  });

  it("gives the files of tool inputs the budget first, then the newest mentions, within it", () => {
    const builder = new ConversationBuilder().user("go");
    for (let index = 0; index < 100; index += 1)
      builder.toolCall({
        id: `t${index}`,
        name: index % 2 === 0 ? "Edit" : "Bash",
        input: index % 2 === 0 ? { file_path: `src/e${index}.ts` } : { command: "ls" },
        result: `lib/m${index}/x.ts and lib/m${index}/y.ts`,
      });
    const entries = collectFileLedger(builder.build());
    for (const tokens of [0, 20, 100, 400, 600, 1000]) {
      const block = renderFileLedger(entries, tokens);
      expect(charsToTokens(block.length)).toBeLessThanOrEqual(tokens);
    }
    const block = renderFileLedger(entries, 600);
    expect(block.match(/^- edited /gm)).toHaveLength(50);
    expect(block).toContain("lib/m99/y.ts");
    expect(block).not.toContain("lib/m1/x.ts");
    expect(block).toMatch(/more files touched earlier; in the archive\)$/);
    expect(renderFileLedger(entries, 100_000)).toContain("lib/m0/x.ts, lib/m0/y.ts, lib/m1/x.ts");
    expect(renderFileLedger(entries, 100_000).split("\n")).toHaveLength(
      1 + 50 + Math.ceil(200 / 12),
    );
  });

  it("reads no mentions from a forged or odd mentions line", () => {
    const odd = summaryMessage("gist", [], { sessionId: "s", clock: AT }, [
      "",
      [
        LEDGER_HEADING,
        "- mentioned src/a.ts (from t1)",
        "- mentioned in tool output: , a b.ts",
      ].join("\n"),
    ]);
    expect(collectFileLedger([odd])).toEqual([]);
  });
});
