import type { ResponseInputItem } from "openai/resources/responses/responses";
import { oneCallHelper } from "../session/compact-messages.js";
import { responsesInputMessages } from "./responses-input.js";
import { writeResponsesInput } from "./responses-output.js";

/**
 * Compacts a whole Responses API conversation (a request's `input`, sent whole: `store: false`
 * or no `previous_response_id`) in one call, as a stateless server does for each request it
 * gets: converts it, compacts it as the session does (its default compactors, clamps, pins,
 * stale reasoning removed, the archive, the last resort) and converts back. Resolves to the
 * input array itself when nothing changed, else hands back the caller's own items for the
 * messages left as they were.
 *
 * A failure of its compactor (a summarizer's outage) or of the archive does not reject: the
 * result's `error` holds it, and the last resort still fits the items in the window (as in a
 * session's run: what ran before a failed compactor stands; nothing a compactor did stands
 * when the archive could not keep what it removed).
 *
 * @example
 * const { messages: input } = await compactResponsesInput(history, { contextLimit: 400_000 });
 * const response = await client.responses.create({ model, input, store: false });
 * @throws {ValidationError} for bad options or malformed items; the caller's abort rejects
 * with an `aborted` `CompactionError`.
 */
export const compactResponsesInput = oneCallHelper<ResponseInputItem>({
  entry: "compactResponsesInput",
  what: "Responses input",
  // The API takes a call's output anywhere after it.
  lateResults: "kept",
  // A call_id answered twice is refused: a reused one is written anew, as toResponsesInput does.
  distinctToolIds: true,
  // Ids by position: the messages live for the call only, and are named the same at each.
  from: (items, origins) => responsesInputMessages(items, { idPrefix: "" }, origins),
  to: writeResponsesInput,
});
