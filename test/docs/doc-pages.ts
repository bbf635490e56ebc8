import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The repository's root. */
export const DOCS_ROOT = resolve(import.meta.dirname, "../..");

/** A page of the documentation: its path from the repository's root and its text. */
export interface DocPage {
  path: string;
  text: string;
}

/** The pages a user reads: README.md, then every `docs/*.md` page in name order. */
export function docPages(): DocPage[] {
  const directory = join(DOCS_ROOT, "docs");
  const pages = existsSync(directory)
    ? readdirSync(directory)
        .filter((name) => name.endsWith(".md"))
        .sort()
        .map((name) => `docs/${name}`)
    : [];
  return ["README.md", ...pages].map((path) => ({ path, text: docPage(path) }));
}

/** One page's text, by its path from the repository's root. */
export function docPage(path: string): string {
  return readFileSync(join(DOCS_ROOT, path), "utf8");
}

/** A fenced code block of a page. */
export interface CodeBlock {
  /** The page's path from the repository's root. */
  page: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The fence's language (`ts`, `sh`, or "" for none). */
  language: string;
  code: string;
}

/** Every fenced code block of a page, in order; an unclosed fence throws, naming its line. */
export function codeBlocks(page: DocPage): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: CodeBlock | undefined;
  page.text.split("\n").forEach((text, index) => {
    if (open === undefined) {
      const fence = /^```(\S*)\s*$/.exec(text);
      if (fence !== null)
        open = { page: page.path, line: index + 1, language: fence[1]!, code: "" };
    } else if (/^```\s*$/.test(text)) {
      blocks.push(open);
      open = undefined;
    } else {
      open.code += `${text}\n`;
    }
  });
  if (open !== undefined) throw new Error(`${page.path}:${open.line}: unclosed code block`);
  return blocks;
}

/** Whether a block is TypeScript (```ts or ```typescript), the blocks that must compile. */
export const isTypeScript = (block: CodeBlock): boolean =>
  block.language === "ts" || block.language === "typescript";
