import { describe, expect, it } from "vitest";
import { isSummaryPart } from "../core/summary-format.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { ConversationBuilder } from "../testing/builders.js";
import {
  collectOutlines,
  fileOutline,
  OUTLINE_HEADING,
  parseOutlines,
  pathsRead,
  renderOutlines,
} from "./file-outline.js";
import { keepingTrimOptions, trimOldest } from "./overflow-trim.js";

/** A file as Claude Code's Read tool shows it: `   12→line`. */
function numbered(lines: readonly string[]): string {
  return lines.map((line, index) => `${String(index + 1).padStart(6)}→${line}`).join("\n");
}

const SOURCE = [
  'import { Container } from "./tui.js";',
  "",
  "/** The theme. */",
  "export interface MarkdownTheme {",
  "  heading: (text: string) => string;",
  "}",
  "",
  "export function setTheme(name: string): void {",
  "    const found = themes.get(name);",
  '        if (found === undefined) throw new Error("Theme not found");',
  "}",
  "// a comment",
  "export let theme: Theme;",
];

describe("file outlines", () => {
  it("keeps the declaration lines with their line numbers, not bodies, comments or braces", () => {
    const outline = fileOutline(numbered(SOURCE));
    expect(outline.split("\n")).toEqual([
      '1: import { Container } from "./tui.js";',
      "4: export interface MarkdownTheme {",
      "5: heading: (text: string) => string;",
      "8: export function setTheme(name: string): void {",
      "9: const found = themes.get(name);",
      "13: export let theme: Theme;",
    ]);
  });

  it("reads tabs as four columns and text without line numbers too", () => {
    expect(fileOutline("class A {\n\tmethod() {\n\t\tbody();\n\t}\n}")).toBe(
      "class A {\nmethod() {",
    );
  });

  it("stays within 1,500 characters, cutting each line at 140", () => {
    const outline = fileOutline(
      Array.from({ length: 500 }, (_, i) => `const x${i} = ${"y".repeat(300)};`).join("\n"),
    );
    expect(outline.length).toBeLessThanOrEqual(1500);
    for (const line of outline.split("\n")) expect(line.length).toBeLessThanOrEqual(141);
  });

  it("outlines the files read (the newest read of each), not edits, short reads or errors", () => {
    const builder = new ConversationBuilder()
      .user("go")
      .toolCall({
        name: "Read",
        input: { file_path: "src/a.ts" },
        result: numbered(SOURCE).repeat(5),
      })
      .toolCall({ name: "Read", input: { file_path: "src/b.ts" }, result: "tiny" })
      .toolCall({
        name: "Edit",
        input: { file_path: "src/a.ts", old: "x" },
        result: numbered(SOURCE).repeat(5),
      })
      .toolCall({
        name: "Read",
        input: { file_path: "src/c.ts" },
        result: numbered(SOURCE).repeat(5),
        isError: true,
      });
    const outlines = collectOutlines(builder.build());
    expect([...outlines.keys()]).toEqual(["src/a.ts"]);
    expect(pathsRead(builder.build())).toEqual(new Set(["src/a.ts", "src/b.ts", "src/c.ts"]));
  });

  it("renders the newest first within the budget, leaving out files still visible, and reads itself back", () => {
    const outlines = new Map([
      ["src/old.ts", "1: export const old = 1;"],
      ["src/new.ts", "1: export const fresh = 2;"],
      ["src/seen.ts", "1: export const seen = 3;"],
    ]);
    const block = renderOutlines(outlines, 1000, new Set(["src/seen.ts"]));
    expect(block.startsWith(OUTLINE_HEADING)).toBe(true);
    expect(block.indexOf("src/new.ts")).toBeLessThan(block.indexOf("src/old.ts"));
    expect(block).not.toContain("src/seen.ts");
    expect([...parseOutlines(block)]).toEqual([
      ["src/old.ts", "1: export const old = 1;"],
      ["src/new.ts", "1: export const fresh = 2;"],
    ]);
    expect(renderOutlines(outlines, 10)).toBe("");
  });

  // A path without an archive (every one-call helper's default) names no handle: the heading
  // told the model to recall one anyway. It now says to recall only where a handle stands.
  it("tells to recall a read only where a handle stands for it", () => {
    expect(OUTLINE_HEADING).toContain("recall a read's handle, if it has one,");
    expect(OUTLINE_HEADING).not.toContain("recall the handle of its read");
  });

  // A stateless client sends back what an earlier version wrote: its heading still reads as the
  // library's, and the outlines under it are carried on.
  it("reads back a block under the heading written before", () => {
    const earlier =
      "Outlines of files read earlier (each file's declaration lines as the read showed them, newest read first; recall the handle of its read for the whole text):" +
      "\n== src/old.ts ==\n1: export const old = 1;";
    expect([...parseOutlines(earlier)]).toEqual([["src/old.ts", "1: export const old = 1;"]]);
    const history = new ConversationBuilder().user("go").build();
    const notice = {
      ...history[0]!,
      id: "notice",
      turnId: SUMMARY_TURN_ID,
      content: [
        {
          type: "text" as const,
          text: "[Earlier messages were removed to fit the context window]",
        },
        { type: "text" as const, text: earlier },
      ],
    };
    expect([...collectOutlines([notice, ...history])]).toEqual([
      ["src/old.ts", "1: export const old = 1;"],
    ]);
    expect(isSummaryPart(notice.content[1]!)).toBe(true);
  });

  it("never takes a line that would read back as a section of the block", () => {
    const text = `== src/forged.ts ==\nplain top-level line\n${numbered(SOURCE)}\n`.repeat(2);
    const lines = fileOutline(text).split("\n");
    expect(lines).toContain("plain top-level line");
    for (const line of lines) expect(line.startsWith("==")).toBe(false);
  });

  it("is carried by a trim's notice from one trim to the next, until the file is read again", () => {
    const builder = new ConversationBuilder().user("Rework the theme.");
    builder.toolCall({
      name: "Read",
      input: { file_path: "src/theme.ts" },
      result: numbered(SOURCE).repeat(4),
    });
    for (let step = 0; step < 12; step += 1)
      builder.toolCall({
        name: "Bash",
        input: { command: `run ${step}` },
        result: `out ${step} `.repeat(200),
      });
    const options = keepingTrimOptions(20_000);
    const first = trimOldest(builder.build(), 1500, options)!;
    expect(JSON.stringify(first.conversation)).toContain(
      "export function setTheme(name: string): void {",
    );
    for (let step = 12; step < 24; step += 1)
      builder.toolCall({
        name: "Bash",
        input: { command: `run ${step}` },
        result: `out ${step} `.repeat(200),
      });
    const later = [...first.conversation, ...builder.build().slice(-24)];
    const second = trimOldest(later, 1500, options)!;
    expect(JSON.stringify(second.conversation)).toContain(
      "export function setTheme(name: string): void {",
    );
  });
});
