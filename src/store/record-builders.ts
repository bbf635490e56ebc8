import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { AssistantMessage, ContentBlock, Message, UserMessage } from "../core/message.js";
import { MessageSchema } from "../core/schemas.js";
import { AgentSession } from "../session/agent-session.js";
import { type Usage, UsageSchema } from "../session/context-meter.js";
import type { ToolResultInput } from "../session/tool-results.js";
import type { LogEntry } from "./records.js";
import type { SessionView } from "./session-view.js";

/**
 * Builds the record of one write from the conversation as a worker has it, on a helper
 * session holding its last message (see `MessageHelper`): validated as `AgentSession`
 * validates it, or `undefined` when there is nothing to write.
 */
export type RecordBuilder<T> = (
  helper: AgentSession,
  view: SessionView,
) => { entry: LogEntry; result: T } | undefined;

/** Messages as they are; those already stored (a retried append) are not written twice. */
export function messagesRecord(messages: Message[]): RecordBuilder<void> {
  return (helper, view) => {
    const parsed = parseOrThrow(z.array(MessageSchema), messages, "messages");
    if (view.hasAll(parsed)) return undefined;
    const issues = view.duplicateIssues(parsed);
    if (issues.length > 0) throw new ValidationError("messages", issues);
    helper.append(...parsed);
    const appended = helper.messages.slice(helper.messages.length - parsed.length);
    return { entry: { kind: "messages", messages: appended }, result: undefined };
  };
}

/** A user message opening a new turn, pinned when asked. */
export function userTextRecord(
  text: string,
  options: { pinned?: boolean },
): RecordBuilder<UserMessage> {
  return (helper) => {
    const message = helper.addUserText(text, options);
    const pinned = options.pinned === true ? { pinned: [message.id] } : {};
    return { entry: { kind: "messages", messages: [message], ...pinned }, result: message };
  };
}

/** A pin, checked on a copy of the conversation (a refused pin leaves the worker's as it was). */
export function pinRecord(messageId: string): RecordBuilder<void> {
  return (_helper, view) => {
    AgentSession.fromJSON(view.session.toJSON(), { compactor: false }).pin(messageId);
    return { entry: { kind: "pins", messageIds: [messageId] }, result: undefined };
  };
}

/** An assistant message in the current turn; its `tool_use` ids new to the conversation. */
export function assistantRecord(content: ContentBlock[]): RecordBuilder<AssistantMessage> {
  return (helper, view) => {
    const message = helper.addAssistant(content);
    const issues = view
      .duplicateIssues([message])
      .map((issue) => ({ ...issue, path: issue.path.slice(2) }));
    if (issues.length > 0) throw new ValidationError("assistant content", issues);
    return { entry: { kind: "messages", messages: [message] }, result: message };
  };
}

/** Tool results answering the `tool_use` blocks of the last message. */
export function toolResultsRecord(results: ToolResultInput[]): RecordBuilder<UserMessage> {
  return (helper) => {
    const message = helper.addToolResults(results);
    return { entry: { kind: "messages", messages: [message] }, result: message };
  };
}

/** A usage the model reported. */
export function usageRecord(usage: Usage): RecordBuilder<void> {
  return () => {
    const parsed = parseOrThrow(UsageSchema, usage, "usage");
    return { entry: { kind: "usage", usage: parsed }, result: undefined };
  };
}

/** Compact summaries by tool use id (those the helper holds already are not written again). */
export function summariesRecord(
  summaries: ReadonlyMap<string, string> | Record<string, string>,
): RecordBuilder<void> {
  return (helper) => {
    const before = new Map(helper.compactSummaries);
    helper.storeCompactSummaries(summaries);
    const stored = Object.fromEntries(
      [...helper.compactSummaries].filter(([toolUseId, text]) => before.get(toolUseId) !== text),
    );
    return { entry: { kind: "summaries", summaries: stored }, result: undefined };
  };
}
