import { type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { INTERRUPTED_NOTICE } from "../session/message-intake.js";

type Call = { id?: string; name: string };

/** The error result that closes a call a later message went on without. */
function closing(call: Call & { id: string }): ToolMessage {
  return new ToolMessage({
    content: INTERRUPTED_NOTICE,
    tool_call_id: call.id,
    name: call.name,
    status: "error",
    id: `interrupted-${call.id}`,
  });
}

/**
 * `messages` with each tool call that a later message went on without (a run that stopped
 * between the model's calls and their results, then a new request) closed by an error result
 * (`INTERRUPTED_NOTICE`) right where its results belonged, as the session's `addUserText`
 * closes them: no provider takes calls left unanswered. The same array when none was; calls
 * still waiting at the end (the open tail) stay open.
 */
export function closeInterruptedCalls(messages: readonly BaseMessage[]): readonly BaseMessage[] {
  let out: BaseMessage[] | undefined;
  let open = new Map<string, Call & { id: string }>();
  messages.forEach((message, index) => {
    if (message.type === "tool") {
      open.delete((message as ToolMessage).tool_call_id);
    } else if (open.size > 0) {
      out ??= messages.slice(0, index);
      out.push(...[...open.values()].map(closing));
      open = new Map();
    }
    if (message.type === "ai") {
      const calls = ((message as { tool_calls?: Call[] }).tool_calls ?? []).filter(
        (call): call is Call & { id: string } => typeof call.id === "string" && call.id !== "",
      );
      open = new Map(calls.map((call) => [call.id, call]));
    }
    out?.push(message);
  });
  return out ?? messages;
}
