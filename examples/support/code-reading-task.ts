/**
 * The task both agent examples run: a small repository read through a `read_file` tool, four
 * requests (the first states a rule the last asks about), and the answer to each read.
 */

/** A small repository the agent's tools read from. */
export const FILES: Record<string, string> = Object.fromEntries(
  [
    "src/lexer.ts",
    "src/parser.ts",
    "src/ast.ts",
    "src/printer.ts",
    "src/errors.ts",
    "src/index.ts",
  ].map((path, fileIndex) => [
    path,
    Array.from(
      { length: 40 + fileIndex * 6 },
      (_, line) =>
        `export function ${path.slice(4, -3)}Step${line}(input: string): string { return input.trim() + "${line}"; }`,
    ).join("\n"),
  ]),
);

export const TASKS = [
  "Read src/lexer.ts and src/parser.ts and tell me how tokens flow. A rule for this whole session: never modify files under vendor/.",
  "Now read src/ast.ts and src/printer.ts.",
  "Check src/errors.ts and src/index.ts for the public API.",
  "One line: what did you find, and which rule did I give you?",
];

export const SYSTEM =
  "You are a code-reading assistant. Read the files the user names with read_file, then answer in two sentences at most.";

/** What reading `path` gives: the file, or an error; the compact summary masking keeps of it. */
export function readFile(
  name: string,
  path: string,
): { content: string; isError: boolean; compactSummary: string } {
  const contents = FILES[path];
  if (name !== "read_file" || contents === undefined) {
    return {
      content: `No such file: ${path || "(none)"}. Files: ${Object.keys(FILES).join(", ")}`,
      isError: true,
      compactSummary: `[read_file ${path}: not found]`,
    };
  }
  const lines = contents.split("\n").length;
  return {
    content: contents,
    isError: false,
    compactSummary: `[read_file ${path}: ${lines} lines, functions ${path.slice(4, -3)}Step0…${lines - 1}]`,
  };
}
