import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { type CodeBlock, codeBlocks, docPage, docPages, isTypeScript } from "../docs/doc-pages.js";
import type { Compiled } from "../package/consumer-project.js";
import { sharedConsumerProject } from "../package/shared-project.js";

// The README and the docs/ pages as a new user meets them: each ```ts block pasted into a file of
// its own in a fresh project that installed the packed package, and compiled there. A block that
// is not meant to compile is fenced as ```text or ```sh instead.
const PAGES = docPages();
// The page whose API section names every export of each entry.
const API_PAGE = "docs/api.md";
const ENTRIES = [
  "agent-compaction",
  "agent-compaction/anthropic",
  "agent-compaction/testing",
  "agent-compaction/schemas",
  "agent-compaction/store",
  "agent-compaction/file-store",
  "agent-compaction/redis",
  "agent-compaction/postgres",
  "agent-compaction/otel",
  "agent-compaction/models",
  "agent-compaction/langchain",
  "agent-compaction/ai-sdk",
  "agent-compaction/openai",
  "agent-compaction/chat-completions",
  "agent-compaction/gemini",
];

/**
 * The names the API section (`## API` of {@link API_PAGE}) gives each entry: the leading
 * identifier of every code span under the entry's `### \`entry\`` heading
 * (`AgentSession(options)` names AgentSession).
 */
function apiNames(page: string): Map<string, Set<string>> {
  const markdown = `\n${page}`; // the section may open the page
  const start = markdown.indexOf("\n## API\n");
  if (start === -1) throw new Error(`${API_PAGE} has no ## API section`);
  const end = markdown.indexOf("\n## ", start + 1);
  const names = new Map<string, Set<string>>();
  let entry: Set<string> | undefined;
  for (const text of markdown.slice(start, end === -1 ? undefined : end).split("\n")) {
    const heading = /^### `([^`]+)`/.exec(text);
    if (heading !== null) {
      entry = new Set();
      names.set(heading[1]!, entry);
      continue;
    }
    for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
      const name = /^(?:new\s+)?([A-Za-z_$][\w$]*)/.exec(span!)?.[1];
      if (name !== undefined) entry?.add(name);
    }
  }
  return names;
}

// Deliberately wrong, compiled with the blocks: proves the check reads files and fails on errors.
const CANARY = `import { AgentSession } from "agent-compaction";
export const session: AgentSession = new AgentSession({ contextLimit: "200k" });
`;

const blocks = PAGES.flatMap(codeBlocks).filter(isTypeScript);
/** The file a block is pasted into: `readme/docs-recipes-line-12.ts` for docs/recipes.md:12. */
const fileOf = (block: CodeBlock) =>
  `readme/${block.page.replace(/\.md$/, "").replace(/\//g, "-")}-line-${block.line}.ts`;

const project = sharedConsumerProject();
let compiled: Compiled;

beforeAll(async () => {
  mkdirSync(join(project.dir, "readme"));
  for (const block of blocks) writeFileSync(join(project.dir, fileOf(block)), block.code);
  writeFileSync(join(project.dir, "readme/canary.ts"), CANARY);
  // One tsc over every block: each file is a module of its own (moduleDetection force), as a
  // block pasted into a file of a project is; declarations of the packages checked too.
  compiled = await project.typecheck([
    "--noEmit",
    "--pretty",
    "false",
    "--strict",
    "--moduleResolution",
    "bundler",
    "--module",
    "esnext",
    "--target",
    "es2022",
    "--skipLibCheck",
    "false",
    "--types",
    "node",
    "--moduleDetection",
    "force",
    ...blocks.map(fileOf),
    "readme/canary.ts",
  ]);
}, 600_000);

/** tsc's errors for one file, each with its indented continuation lines. */
function errorsIn(file: string): string[] {
  const diagnostics: string[][] = [];
  for (const line of compiled.output.split("\n")) {
    if (/^\s/.test(line)) diagnostics.at(-1)?.push(line);
    else diagnostics.push([line]);
  }
  return diagnostics
    .filter(([first]) => first!.startsWith(`${file}(`) && / error TS\d+:/.test(first!))
    .map((lines) => lines.join("\n"));
}

describe("README.md and docs/*.md", () => {
  it("has TypeScript blocks in the README and the docs pages, and the check fails on a type error", () => {
    const pages = new Set(blocks.map((block) => block.page));
    expect([...pages]).toEqual(
      expect.arrayContaining(["README.md", "docs/recipes.md", "docs/production.md"]),
    );
    expect(compiled.status).not.toBe(0);
    expect(errorsIn("readme/canary.ts")).toHaveLength(1);
  });

  it("every TypeScript block compiles as pasted, against the packed package", () => {
    const failing = blocks.flatMap((block) => {
      const errors = errorsIn(fileOf(block));
      return errors.length === 0 ? [] : [`${block.page}:${block.line}\n  ${errors.join("\n  ")}`];
    });
    expect(failing, `blocks that do not compile:\n${failing.join("\n")}`).toEqual([]);
    // Nothing else failed: no package declaration, no resolution error.
    const others = compiled.output
      .split("\n")
      .filter((line) => / error TS\d+:/.test(line) && !line.startsWith("readme/"));
    expect(others).toEqual([]);
  });

  it("names every runtime export of each entry in its API section (docs/api.md)", () => {
    const script = `
      const keys = {};
      for (const entry of ${JSON.stringify(ENTRIES)}) keys[entry] = Object.keys(await import(entry));
      console.log(JSON.stringify(keys));`;
    const exported = JSON.parse(project.node(["--input-type=module", "-e", script])) as Record<
      string,
      string[]
    >;
    const documented = apiNames(docPage(API_PAGE));
    const missing = ENTRIES.flatMap((entry) =>
      exported[entry]!.filter((name) => !documented.get(entry)?.has(name)).map(
        (name) => `${entry}: ${name}`,
      ),
    );
    expect(missing, `runtime exports missing from the API section of ${API_PAGE}`).toEqual([]);
  });

  it("names every type export of each entry in its API section (docs/api.md)", () => {
    const packageDir = join(project.dir, "node_modules", "agent-compaction");
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      exports: Record<string, { import: { types: string } }>;
    };
    const declarationOf = (entry: string) =>
      join(packageDir, manifest.exports[entry.replace(/^agent-compaction/, ".")]!.import.types);
    const program = ts.createProgram(ENTRIES.map(declarationOf), {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const documented = apiNames(docPage(API_PAGE));
    const missing = ENTRIES.flatMap((entry) => {
      const source = program.getSourceFile(declarationOf(entry));
      const module = source && checker.getSymbolAtLocation(source);
      if (module === undefined) return [`${entry}: declarations not found`];
      return checker
        .getExportsOfModule(module)
        .map((symbol) => symbol.name)
        .filter((name) => !documented.get(entry)?.has(name))
        .map((name) => `${entry}: ${name}`);
    });
    expect(missing, `exports missing from the API section of ${API_PAGE}`).toEqual([]);
  });
});
