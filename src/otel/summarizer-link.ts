import type { Span } from "@opentelemetry/api";
import type { LlmClient } from "../core/llm-client.js";

/**
 * What ties a traced summarizer to the compaction that calls it: `traceCompactions` opens a
 * compaction span and parks it here while the run lasts, and the client `traceLlmClient`
 * returned parents its `chat` span to it. Listeners cannot make a span the active context of
 * the session's own async call, so the tie is explicit (`traceCompactions(session, { summarizer })`).
 */
export interface SummarizerLink {
  /** The compaction span now open, if any. */
  parent: Span | undefined;
  /** Requests the client traced while `parent` was open. */
  requests: number;
}

const links = new WeakMap<LlmClient, SummarizerLink>();

/** Registers a client `traceLlmClient` returned. */
export function registerSummarizer(client: LlmClient): SummarizerLink {
  const link: SummarizerLink = { parent: undefined, requests: 0 };
  links.set(client, link);
  return link;
}

/** The link of a client `traceLlmClient` returned; `undefined` for any other client. */
export function summarizerLink(client: LlmClient): SummarizerLink | undefined {
  return links.get(client);
}
