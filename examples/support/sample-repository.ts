/** The small TypeScript repository the examples' agents read: a compiler's source files. */
export const SAMPLE_PATHS = [
  "src/lexer.ts",
  "src/parser.ts",
  "src/ast.ts",
  "src/printer.ts",
  "src/errors.ts",
  "src/index.ts",
] as const;

/** Each file's text: a few dozen one-line functions, more in each later file. */
export const SAMPLE_FILES: Readonly<Record<string, string>> = Object.fromEntries(
  SAMPLE_PATHS.map((path, fileIndex) => [
    path,
    Array.from(
      { length: 40 + fileIndex * 6 },
      (_, line) =>
        `export function ${path.slice(4, -3)}Step${line}(input: string): string { return input.trim() + "${line}"; }`,
    ).join("\n"),
  ]),
);
