import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./consumer-project.js";
import { sharedConsumerProject } from "./shared-project.js";

// The names each entry gives users, counted on the package as it is installed: the values by
// importing the entry (ESM), the types by the compiler on the entry's published declarations.
// A wide surface is what users must read and what can never change again, so each entry keeps
// to a budget: the contract, what the README's examples use and what users type their code
// with; wire details and internals stay in the sources.
const project = sharedConsumerProject();

/** At most this many names an entry (the AI SDK's Anthropic provider package exports 12). */
const ENTRY_BUDGET = 30;
/** The root: the contract, the session and the message model, types mostly. */
const ROOT_BUDGET = { names: 90, runtime: 25 };

interface PackageJson {
  name: string;
  exports: Record<string, string | { import: { types: string; default: string } }>;
}
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;

/** Every code entry of `exports` (`./package.json` is not one): its specifier and its declarations. */
const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
  typeof target === "string"
    ? []
    : [
        {
          specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
          types: join(project.dir, "node_modules", manifest.name, target.import.types),
        },
      ],
);

/** The names DESIGN.md fixes: tests outside the repository import them. */
const CONTRACT: Record<string, readonly string[]> = {
  "agent-compaction/anthropic": [
    "AnthropicLlmClient",
    "toAnthropicMessages",
    "fromAnthropicMessages",
    "usageFromAnthropic",
    "AnthropicTokenCounter",
    "AnthropicCompactor",
    "appendAnthropicResponse",
  ],
  "agent-compaction/testing": ["MockLlmClient"],
};

/** The values each entry exports at runtime, by importing it as users do. */
function runtimeNamesOf(specifiers: readonly string[]): Record<string, string[]> {
  const script = `
    const specifiers = ${JSON.stringify(specifiers)};
    const names = {};
    for (const specifier of specifiers) names[specifier] = Object.keys(await import(specifier));
    console.log(JSON.stringify(names));`;
  return JSON.parse(project.node(["--input-type=module", "-e", script])) as Record<
    string,
    string[]
  >;
}

/** Every name each entry's declarations export, types and values alike. */
function declaredNamesOf(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const source = program.getSourceFile(file);
      const module = source && checker.getSymbolAtLocation(source);
      if (module === undefined) throw new Error(`${file}: no module`);
      return [file, checker.getExportsOfModule(module).map((symbol) => symbol.name)];
    }),
  );
}

const runtime = runtimeNamesOf(entries.map((entry) => entry.specifier));
const declared = declaredNamesOf(entries.map((entry) => entry.types));

/** An entry's names: all of them, and those that exist at runtime. */
function namesOf(specifier: string): { all: string[]; values: string[] } {
  const entry = entries.find((candidate) => candidate.specifier === specifier);
  if (entry === undefined) throw new Error(`${specifier}: not in package.json exports`);
  const values = runtime[specifier] ?? [];
  const all = [...new Set([...(declared.get(entry.types) ?? []), ...values])].sort();
  return { all, values };
}

describe("the names each entry exports", () => {
  it("reads every entry of package.json", () => {
    expect(entries.length).toBeGreaterThanOrEqual(15);
    for (const entry of entries) expect(namesOf(entry.specifier).all.length).toBeGreaterThan(0);
  });

  it("the root holds at most 90 names, at most 25 of them at runtime", () => {
    const { all, values } = namesOf(manifest.name);
    expect(all.length, `root: ${all.join(", ")}`).toBeLessThanOrEqual(ROOT_BUDGET.names);
    expect(values.length, `root at runtime: ${values.join(", ")}`).toBeLessThanOrEqual(
      ROOT_BUDGET.runtime,
    );
  });

  it.each(
    entries.map((entry) => entry.specifier).filter((specifier) => specifier !== manifest.name),
  )("%s holds at most 30 names", (specifier) => {
    const { all } = namesOf(specifier);
    expect(all.length, `${specifier}: ${all.join(", ")}`).toBeLessThanOrEqual(ENTRY_BUDGET);
  });

  it("keeps the names of the contract", () => {
    for (const [specifier, names] of Object.entries(CONTRACT)) {
      expect(namesOf(specifier).all, specifier).toEqual(expect.arrayContaining([...names]));
    }
  });
});
