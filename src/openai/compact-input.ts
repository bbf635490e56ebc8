import type { ResponseInputItem } from "openai/resources/responses/responses";
import { oneCallHelper } from "../session/compact-messages.js";
import { responsesInputMessages } from "./responses-input.js";
import { writeResponsesInput } from "./responses-output.js";

/**
 * Compacts a whole Responses API conversation (a request's `input`, sent whole: `store: false`
 * or no `previous_response_id`) in one call, as a stateless server does for each request it
 * gets: converts it, compacts it as the session does (its default compactors, clamps, pins,
 * stale reasoning removed, the archive, the last resort) and converts back. Resolves to the
 * input array itself when nothing changed.
 *
 * @example
 * const { messages: input } = await compactResponsesInput(history, { contextLimit: 400_000 });
 * const response = await client.responses.create({ model, input, store: false });
 * A failing compactor (a summarizer's outage) does not reject: what ran before it stands, the
 * last resort still fits the items in the window, and the result's `error` holds it.
 * @throws {ValidationError} for bad options or malformed items; a failing archive rejects with
 * its `CompactionError`.
 */
export const compactResponsesInput = oneCallHelper<ResponseInputItem>({
  entry: "compactResponsesInput",
  what: "Responses input",
  // Ids by position: the messages live for the call only, and are named the same at each.
  from: (items) => responsesInputMessages(items, { idPrefix: "" }),
  to: writeResponsesInput,
});
