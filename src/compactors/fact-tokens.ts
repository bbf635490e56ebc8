import type { FactKind } from "./facts-check.js";

// How the facts check reads tokens. No pattern here may be super-linear on untrusted text
// (issue 22): TOKEN runs over whole texts and is linear (its URL branch only scans characters
// its second branch then consumes, so each is read at most twice); every other pattern runs on
// one token of at most MAX_TOKEN_LENGTH characters, or is anchored and has no nested repeats.
// Trailing punctuation is trimmed by a loop (trimTrailing), never by `/[…]+$/`.

/** A fact a token holds: an identifier or a path (constraints are sentences, never tokens). */
export interface TokenFact {
  kind: FactKind;
  text: string;
}

/**
 * A URL whole, or a run of characters that identifiers and paths hold (a Windows path with
 * spaces is cut at the first).
 */
export const TOKEN = /[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>()[\]{}]+|[^\s"'`<>()[\]{},;=*|]+/gi;
/** Longer tokens are blobs (base64, minified code), not facts. */
export const MAX_TOKEN_LENGTH = 256;
const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const WINDOWS_PATH = /^[A-Za-z]:\\[\w.@+~\\-]*[A-Za-z][\w.@+~\\-]*$/;
const POSIX_CHARACTERS = /^[\w.@+~/-]+$/;
const ROOTED = /^(?:\/|\.{1,2}\/|~\/)/;
const FILE_LINE = /:\d+(?::\d+)?$/;
// The sets and IDENTIFIER are built in `@__PURE__` calls: a bundle that does not reach the facts
// check (a session's alone) drops them.
const EXTENSIONS = /* @__PURE__ */ (() =>
  new Set(
    (
      "ts tsx mts cts js jsx mjs cjs json jsonl md mdx txt csv tsv log py pyi ipynb rs go java kt kts " +
      "scala rb php c h cc cpp hpp cs swift sh bash zsh fish ps1 bat yml yaml toml ini cfg conf " +
      "lock sql html htm css scss sass less xml svg png jpg jpeg gif webp pdf zip gz tgz tar wasm " +
      "proto graphql vue svelte dart lua ex exs tf gradle properties db sqlite pem"
    ).split(" "),
  ))();
// Member accesses in code (`logger.info`, `self.db`) read as these; a bare name with one is no path.
const CODE_LIKE_EXTENSIONS = new Set(["log", "db", "cfg"]);
// Files known by name alone; a bare `.name` is more often an extension or a method (`.py`, `.format`).
const NAMED_FILES = /* @__PURE__ */ (() =>
  new Set(
    (
      "Makefile Dockerfile Jenkinsfile Gemfile Procfile .env .gitignore .gitattributes .dockerignore " +
      ".npmrc .nvmrc .editorconfig .prettierrc .eslintrc .babelrc .bashrc .zshrc .profile .github .vscode"
    ).split(" "),
  ))();
// "Read/Write/Execute", "Phoenix/Bandit/Ash": capitalised words between slashes are prose.
const CAPITALISED_WORDS = /^[A-Z][a-z]+(?:\/[A-Z][a-z]+)+$/;
const VERSION_SUFFIX = "(?:-[0-9A-Za-z]+(?:\\.[0-9A-Za-z]+)*)?";
const IDENTIFIER = /* @__PURE__ */ (() =>
  new RegExp(
    `(?<![\\w-])(?:${[
      "[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", // uuid
      `v\\d+(?:\\.\\d+)+${VERSION_SUFFIX}`, // v1.2, v1.2.3-beta.1
      `\\d+(?:\\.\\d+){2,}${VERSION_SUFFIX}`, // 1.2.3
      "[A-Z][A-Z0-9]{1,9}-\\d+", // ABC-123
      "[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+", // snake_case, SCREAMING_CASE, toolu_01…
      "[a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+", // camelCase
      "[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,}", // PascalCase of three words or more
      "(?<opaque>[A-Za-z0-9]{7,})", // hashes and opaque ids, filtered by isOpaqueId
    ].join("|")})(?![\\w-])`,
    "g",
  ))();

/** A hex hash of 7 characters or more, or a long token of letters and digits (a ULID, a base62 id). */
function isOpaqueId(text: string): boolean {
  if (!/\d/.test(text) || !/[A-Za-z]/.test(text)) return false;
  return /^(?:[0-9a-f]+|[0-9A-F]+)$/.test(text) || text.length >= 16;
}

function isPath(text: string): boolean {
  if (URL_PATTERN.test(text) || WINDOWS_PATH.test(text)) return true;
  if (!POSIX_CHARACTERS.test(text) || !/[A-Za-z]/.test(text) || text.includes("//")) return false;
  const segments = text.split("/");
  const last = segments[segments.length - 1]!;
  const dot = last.lastIndexOf(".");
  const extension = dot > 0 ? last.slice(dot + 1) : "";
  const hasExtension = EXTENSIONS.has(extension);
  if (segments.length === 1)
    return (hasExtension && !CODE_LIKE_EXTENSIONS.has(extension)) || NAMED_FILES.has(text);
  const root = ROOTED.exec(text);
  // One slash between words is prose ("and/or"); a root, an extension or a deeper path is not.
  if (root !== null) return text.length - root[0].length >= 2;
  return hasExtension || (segments.length >= 3 && !CAPITALISED_WORDS.test(text));
}

const MAY_BE_FACT = /[/\\.:_-]|[a-z0-9][A-Z]|^.{7}/;

/**
 * Whether a token can hold a fact at all: every URL, path and identifier pattern above needs
 * a separator (`/ \\ . : _ -`), a case change after a letter or digit, or 7 characters. Most
 * tokens are plain words; skipping them halves the time a large fold spends here.
 */
export function mayBeFact(token: string): boolean {
  return MAY_BE_FACT.test(token);
}

/** The facts in one token: a URL, a path (without its `:line`), or the identifiers in it. */
export function tokenFacts(raw: string, into: TokenFact[]): void {
  const token = trimTrailing(raw, ".,:;!?");
  if (URL_PATTERN.test(token)) {
    into.push({ kind: "path", text: token });
    return;
  }
  const path = token.replace(FILE_LINE, "");
  if (isPath(path)) {
    into.push({ kind: "path", text: path });
    return;
  }
  for (const match of token.matchAll(IDENTIFIER))
    if (match.groups?.["opaque"] === undefined || isOpaqueId(match[0]))
      into.push({ kind: "identifier", text: match[0] });
}

/**
 * `text` without the run of `characters` at its end. A loop, not `/[…]+$/`: V8 tries that
 * pattern at every start in the run, so a long run of dots took seconds (quadratic).
 */
export function trimTrailing(text: string, characters: string): string {
  let end = text.length;
  while (end > 0 && characters.includes(text[end - 1]!)) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** A constraint as it is compared: lower case, one space between words, no closing punctuation. */
export function normalize(text: string): string {
  return trimTrailing(text.toLowerCase().replace(/\s+/g, " ").trim(), ".!?;:,");
}
