// Emits the published declarations, after tsup has built the JavaScript (`npm run build`).
//
// tsup's bundled declarations put shared types in chunks with minified export aliases, so
// consumers' type errors read `import(".../llm-client-DpTQAiWV").g`. Here tsc writes one
// declaration file per source file instead (tsconfig.build.json), so every type keeps its name:
//   dist/types/**/*.d.ts   for `import` (ESM: the package is "type": "module")
//   dist/types/**/*.d.cts  for `require`: the same files, relative specifiers `.js` -> `.cjs`
// Node only, no dependency beyond the repository's own `typescript`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, "dist", "types");
const require = createRequire(import.meta.url);
const ts = require("typescript");

rmSync(outDir, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve("typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")],
  { cwd: root, stdio: "inherit" },
);

/** Every file under `dir`, recursively. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The string literals naming modules: import/export `from`, `import("…")` types, `declare module`. */
function moduleSpecifiers(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal);
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      found.push(node.name);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const declarations = walk(outDir).filter((file) => file.endsWith(".d.ts"));
const problems = [];
for (const file of declarations) {
  const text = readFileSync(file, "utf8");
  let out = "";
  let from = 0;
  const specifiers = moduleSpecifiers(file, text).sort((a, b) => a.getStart() - b.getStart());
  for (const literal of specifiers) {
    const specifier = literal.text;
    if (!specifier.startsWith("./") && !specifier.startsWith("../")) continue;
    if (!specifier.endsWith(".js")) {
      problems.push(`${relative(root, file)}: relative import "${specifier}" has no .js suffix`);
      continue;
    }
    // getStart() is the opening quote: keep the quote character, rewrite what is inside.
    const start = literal.getStart();
    const quote = text[start];
    out += `${text.slice(from, start)}${quote}${specifier.slice(0, -".js".length)}.cjs${quote}`;
    from = literal.getEnd();
  }
  out += text.slice(from);
  writeFileSync(file.replace(/\.d\.ts$/, ".d.cts"), out);
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`build-types: ${declarations.length} declaration files, as .d.ts and .d.cts, in dist/types`);
