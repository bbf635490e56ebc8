import type { Content } from "@google/genai";
import { compactMessagesOnce } from "../session/compact-messages.js";
import type { CompactedMessages, CompactMessagesOptions } from "../session/stateless-options.js";
import { fromGeminiContents } from "./contents-in.js";
import { writeGeminiContents } from "./contents-out.js";

/**
 * Compacts a whole Gemini conversation (`generateContent`'s `contents`) in one call, as a
 * stateless server does for each request it gets: converts it, compacts it as the session
 * does (its default compactors, clamps, pins, stale thought signatures removed, the archive,
 * the last resort) and converts back. Resolves to the input array itself when nothing changed.
 *
 * @example
 * const { messages: contents } = await compactGeminiContents(history, { contextLimit: 1_000_000 });
 * const response = await ai.models.generateContent({ model, contents, config });
 * @throws {ValidationError} for bad options or malformed contents; a failing asynchronous
 * compactor rejects with its `CompactionError`.
 */
export function compactGeminiContents(
  contents: readonly Content[] | readonly unknown[],
  options: CompactMessagesOptions,
): Promise<CompactedMessages<Content>> {
  return compactMessagesOnce(contents as readonly Content[], options, {
    entry: "compactGeminiContents",
    what: "Gemini contents",
    from: (input) => fromGeminiContents(input),
    to: writeGeminiContents,
  });
}
