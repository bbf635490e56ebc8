import { MAX_TOKEN_LENGTH, normalize, TOKEN, type TokenFact, tokenFacts } from "./fact-tokens.js";
import type { Fact } from "./facts-check.js";

/**
 * Characters the substring fallback may scan in one check, over all its facts. Each fallback
 * scans the whole text once, so without a cap a megabyte of text and thousands of facts took
 * minutes (facts × text); with it the check stays linear, and within it (every real fold
 * checked so far) it answers exactly as a substring search would.
 */
export const FALLBACK_SCAN_CHARS = 64_000_000;

const WORD_CHARACTER = /[A-Za-z0-9_]/;

/** Whether `needle` occurs in `haystack` not as part of a longer word (`toolu_1` is not in `toolu_12`). */
export function occursWhole(haystack: string, needle: string): boolean {
  if (needle === "") return true;
  const guardStart = WORD_CHARACTER.test(needle[0]!);
  const guardEnd = WORD_CHARACTER.test(needle[needle.length - 1]!);
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    if (guardStart && before !== undefined && WORD_CHARACTER.test(before)) continue;
    if (guardEnd && after !== undefined && WORD_CHARACTER.test(after)) continue;
    return true;
  }
  return false;
}

/**
 * Answers whether facts occur in some texts, each answer in time linear in the fact: the
 * texts' tokens and the facts they hold, and their sentences, are indexed once; a fact found
 * in neither is looked for as a whole-word substring while {@link FALLBACK_SCAN_CHARS} allows,
 * and counts as absent after that (it is then restored once more than needed, never lost).
 */
export class FactPresence {
  readonly #exact: string;
  readonly #normalized: string;
  readonly #tokens = new Set<string>();
  readonly #sentences = new Set<string>();
  #scanLeft = FALLBACK_SCAN_CHARS;

  constructor(texts: readonly string[]) {
    // A separator that is neither a word character nor whitespace, so no match spans two texts.
    this.#exact = texts.join("\u0000");
    this.#normalized = normalize(this.#exact);
    const found: TokenFact[] = [];
    for (const { 0: raw } of this.#exact.matchAll(TOKEN)) {
      if (this.#tokens.has(raw)) continue;
      this.#tokens.add(raw);
      if (raw.length <= MAX_TOKEN_LENGTH) tokenFacts(raw, found);
    }
    for (const fact of found) this.#tokens.add(fact.text);
    for (const line of this.#normalized.split("\u0000").join("\n").split("\n"))
      for (const sentence of line.split(/(?<=[.!?]) /)) this.#sentences.add(normalize(sentence));
  }

  /** Whether `fact` occurs: identifiers and paths exactly, constraints as normalized words. */
  has(fact: Fact): boolean {
    const constraint = fact.kind === "constraint";
    const needle = constraint ? normalize(fact.text) : fact.text;
    if ((constraint ? this.#sentences : this.#tokens).has(needle)) return true;
    const haystack = constraint ? this.#normalized : this.#exact;
    if (this.#scanLeft < haystack.length) return false;
    this.#scanLeft -= haystack.length;
    return occursWhole(haystack, needle);
  }
}
