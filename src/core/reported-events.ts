/**
 * The key of a session's hook through which a provider adapter hands it events a response
 * reported (the Anthropic API's input transformations, context edits and cache diagnosis), for
 * the session's observers. No entry exports it: the adapter's own functions call it
 * (`appendAnthropicResponse`), so the neutral session carries no provider's methods. A
 * `Symbol.for` key, so a session from one copy of the package answers an adapter from another.
 */
export const REPORT_EVENTS: unique symbol = Symbol.for("agent-compaction.reportEvents");
