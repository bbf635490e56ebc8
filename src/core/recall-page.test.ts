import { describe, expect, it } from "vitest";
import { ValidationError } from "./errors.js";
import { recallPage, recallPageTokens } from "./recall-page.js";

const FOOTER = /\n\[recall h1: page (\d+) of (\d+)\.[^\]]*\]$/;

/** The pages of `text` one after another, footers cut off. */
function allPages(text: string, pageTokens: number): string[] {
  const pages: string[] = [];
  for (let page = 1; ; page += 1) {
    const answer = recallPage(text, { handle: "h1", page, pageTokens, toolName: "recall" });
    const footer = FOOTER.exec(answer);
    pages.push(footer === null ? answer : answer.slice(0, footer.index));
    if (footer === null || footer[1] === footer[2]) return pages;
  }
}

describe("recall pages", () => {
  it("answers a short original whole, with no footer", () => {
    const answer = recallPage("short", { handle: "h1", pageTokens: 500, toolName: "recall" });
    expect(answer).toBe("short");
  });

  it("pages a long original within the page, breaking at line ends, and loses nothing", () => {
    const text = Array.from(
      { length: 2000 },
      (_, line) => `line ${line} ${"x".repeat(line % 40)}`,
    ).join("\n");
    const pages = allPages(text, 500);
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.join("")).toBe(text);
    for (const page of pages.slice(0, -1)) {
      expect(page.length).toBeLessThanOrEqual(2000);
      expect(page.endsWith("\n")).toBe(true);
    }
  });

  it("ends each page saying which it is and how to ask for the next, the last saying so", () => {
    const text = "y".repeat(10_000);
    const first = recallPage(text, { handle: "h1", pageTokens: 500, toolName: "recall" });
    expect(first).toMatch(
      /\[recall h1: page 1 of 6\. Call recall with \{"handle": "h1", "page": 2\}/,
    );
    const last = recallPage(text, { handle: "h1", page: 6, pageTokens: 500, toolName: "recall" });
    expect(last).toMatch(/page 6 of 6\. This is the last page\.\]$/);
  });

  it.each([0, -1, 1.5, "2", Number.NaN, 7])("refuses page %j naming the field", (page) => {
    const attempt = () =>
      recallPage("z".repeat(10_000), { handle: "h1", page, pageTokens: 500, toolName: "recall" });
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(/page/);
  });

  it("takes an eighth of the window, 4,000 tokens when it is unknown", () => {
    expect(recallPageTokens(200_000)).toBe(25_000);
    expect(recallPageTokens(undefined)).toBe(4000);
    expect(recallPageTokens(1000)).toBe(500);
  });
});
