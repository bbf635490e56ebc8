import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_ROOT, type DocPage, docPage, docPages } from "./doc-pages.js";

// The README stays a front page (quick starts, concepts, a recipe index); the rest lives in
// docs/. Every relative link between the pages, and to a heading of one, must lead somewhere,
// on GitHub and in the package alike (docs/ ships with it).
const README_MAX_LINES = 550;

/** The lines of a page outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { line: number; text: string }[] {
  let fenced = false;
  return text.split("\n").flatMap((line, index) => {
    if (/^```/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: index + 1, text: line }];
  });
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a page's headings, a repeated one numbered as GitHub numbers it (`-1`, `-2`). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative links of a page (no scheme), outside code: `[text](target)` with its line. */
function relativeLinks(text: string): { line: number; target: string }[] {
  return proseLines(text).flatMap(({ line, text: prose }) =>
    [...prose.replace(/`[^`]*`/g, "").matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ line, target })),
  );
}

/** What is wrong with each relative link of `page`: a missing file, or a missing heading. */
function brokenLinks(page: DocPage, read: (path: string) => string | undefined): string[] {
  return relativeLinks(page.text).flatMap(({ line, target }) => {
    const [path = "", anchor] = target.split("#", 2);
    const file = path === "" ? page.path : normalize(join(dirname(page.path), path));
    const where = `${page.path}:${line}: ${target}`;
    const text = read(file);
    if (text === undefined) return [`${where}: no file ${file}`];
    if (anchor === undefined || !file.endsWith(".md")) return [];
    return anchorsOf(text).has(decodeURIComponent(anchor))
      ? []
      : [`${where}: no heading #${anchor}`];
  });
}

/** A file of the repository by its path from the root, `undefined` when there is none. */
function readRepositoryFile(path: string): string | undefined {
  const absolute = join(DOCS_ROOT, path);
  if (relative(DOCS_ROOT, absolute).startsWith("..") || !existsSync(absolute)) return undefined;
  return readFileSync(absolute, "utf8");
}

describe("the README and the docs pages", () => {
  const pages = docPages();

  it(`keep the README to at most ${README_MAX_LINES} lines`, () => {
    const lines = docPage("README.md").trimEnd().split("\n").length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("have docs pages, each linked from the README", () => {
    const docs = pages.map((page) => page.path).filter((path) => path.startsWith("docs/"));
    expect(docs).toEqual(expect.arrayContaining(["docs/api.md", "docs/recipes.md"]));
    const linked = new Set(
      relativeLinks(docPage("README.md")).map(({ target }) => target.split("#")[0]),
    );
    expect(docs.filter((path) => !linked.has(path))).toEqual([]);
  });

  it("anchor headings as GitHub does", () => {
    expect(headingSlug("`agent-compaction/anthropic`")).toBe("agent-compactionanthropic");
    expect(headingSlug("Survive the provider's refusal for length")).toBe(
      "survive-the-providers-refusal-for-length",
    );
    expect(headingSlug("Lose nothing: recall, pins, the last resort")).toBe(
      "lose-nothing-recall-pins-the-last-resort",
    );
    expect([...anchorsOf("## A\n```sh\n# not a heading\n```\n### A\n")]).toEqual(["a", "a-1"]);
  });

  it("find a broken link, a missing heading and a link inside code is not one", () => {
    const page = {
      path: "docs/page.md",
      text: "# Page\n[a](other.md) [b](#page) [c](#gone) `[d](nowhere.md)`\n```\n[e](nowhere.md)\n```\n",
    };
    const read = (path: string) => (path === "docs/page.md" ? page.text : undefined);
    expect(brokenLinks(page, read)).toEqual([
      "docs/page.md:2: other.md: no file docs/other.md",
      "docs/page.md:2: #gone: no heading #gone",
    ]);
  });

  it("link only to files and headings that exist", () => {
    const broken = pages.flatMap((page) => brokenLinks(page, readRepositoryFile));
    expect(broken).toEqual([]);
    // The check saw the README's links into docs/, anchors included.
    const readmeLinks = relativeLinks(docPage("README.md")).map(({ target }) => target);
    expect(readmeLinks.filter((target) => /^docs\/.+\.md#./.test(target)).length).toBeGreaterThan(
      10,
    );
  });
});
