#!/usr/bin/env node
// Lists the functions under src/ (tests left out) longer than a limit, longest first:
// `node scripts/function-lengths.mjs [limit=60] [paths...]`. Exits 1 when any is listed.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

function sourceFiles(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path).flatMap((name) => {
    const child = join(path, name);
    if (statSync(child).isDirectory()) return sourceFiles(child);
    return child.endsWith(".ts") && !child.endsWith(".test.ts") && !child.endsWith(".d.ts")
      ? [child]
      : [];
  });
}

function nameOf(node, source) {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isConstructorDeclaration(node)) return "constructor";
  return "(anonymous)";
}

/**
 * The functions with a body longer than `limit` lines in the TypeScript files under `roots`
 * (tests and declarations left out), longest first: `{ file, line, name, lines }`.
 */
export function longFunctions(roots, limit) {
  const long = [];
  for (const file of roots.flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.end).line;
        const lines = end - start + 1;
        if (lines > limit) {
          long.push({ file: relative(".", file), line: start + 1, name: nameOf(node, source), lines });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long.sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [limitArgument, ...paths] = process.argv.slice(2);
  const long = longFunctions(paths.length > 0 ? paths : ["src"], Number(limitArgument ?? 60));
  for (const entry of long) {
    process.stdout.write(
      `${String(entry.lines).padStart(4)}  ${entry.file}:${entry.line}  ${entry.name}\n`,
    );
  }
  process.exitCode = long.length > 0 ? 1 : 0;
}
