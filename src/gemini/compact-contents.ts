import type { Content } from "@google/genai";
import { ValidationError } from "../core/errors.js";
import { UNREADABLE } from "../internal/unreadable.js";
import { oneCallHelper } from "../session/compact-messages.js";
import { geminiContentsToOurs } from "./contents-in.js";
import { writeGeminiContents } from "./contents-out.js";
import { withPartialResponsesClosed } from "./partial-responses.js";

/** `gen-0`, `gen-1`, …: the same ids for the same contents at every call. */
function positions(): () => string {
  let next = 0;
  return () => `gen-${next++}`;
}

/**
 * Compacts a whole Gemini conversation (`generateContent`'s `contents`) in one call, as a
 * stateless server does for each request it gets: converts it, compacts it as the session
 * does (its default compactors, clamps, pins, stale thought signatures removed, the archive,
 * the last resort) and converts back. Calls that a last content of function responses leaves
 * unanswered are closed as interrupted (Gemini takes no later response to them). Resolves to the
 * input array itself when nothing changed, else hands back the caller's own contents for the
 * messages left as they were.
 *
 * A failure of its compactor (a summarizer's outage) or of the archive does not reject: the
 * result's `error` holds it, and the last resort still fits the contents in the window (as in a
 * session's run: what ran before a failed compactor stands; nothing a compactor did stands
 * when the archive could not keep what it removed).
 *
 * @example
 * const { messages: contents } = await compactGeminiContents(history, { contextLimit: 1_000_000 });
 * const response = await ai.models.generateContent({ model, contents, config });
 * @throws {ValidationError} for bad options or malformed contents (a getter or proxy of theirs
 * that threw among them); the caller's abort rejects with an `aborted` `CompactionError`.
 */
export const compactGeminiContents = oneCallHelper<Content>({
  entry: "compactGeminiContents",
  what: "Gemini contents",
  // Ids by position: the messages live for the call only, and are named the same at each, as
  // are the calls Gemini sent without an id (never written back; they name archive handles).
  from: (input, origins) =>
    geminiContentsToOurs(input, { idPrefix: "", generateId: positions() }, origins),
  // A last content answering only some of its turn's calls can take no more: they are closed.
  prepare: closedOrNamed,
  to: writeGeminiContents,
});

/**
 * {@link withPartialResponsesClosed}, which reads the last contents before their conversion: a
 * getter (or a proxy's trap) that throws there is bad input, named by the conversion (which
 * reads every field) where it throws again, else a `ValidationError` of the contents with it as
 * the cause.
 */
function closedOrNamed(contents: readonly Content[]): readonly Content[] {
  try {
    return withPartialResponsesClosed(contents);
  } catch (error) {
    geminiContentsToOurs(contents, {});
    throw new ValidationError("Gemini contents", [{ path: [], message: UNREADABLE }], {
      cause: error,
    });
  }
}
