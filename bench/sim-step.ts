import type { AgentSession, ContentBlock, Message, Usage } from "../src/index.js";
import type { SimulatedStep } from "./workload.js";

/**
 * One simulated step driven through a session, shared by the simulations (parts 1, 5 and the
 * model-compaction run); each bills the request between the two halves its own way.
 */

/** Sends the step's user text (if any) and runs the compaction due: the messages the request sends. */
export async function openStep(
  session: AgentSession,
  step: SimulatedStep,
): Promise<readonly Message[]> {
  if (step.userText !== undefined) session.addUserText(step.userText);
  await session.maybeCompact();
  return session.messages;
}

/** Adds the step's reply (its reasoning and tool calls) with `usage(reply)`, then its tool results. */
export function answerStep(
  session: AgentSession,
  step: SimulatedStep,
  usage: (reply: Message) => Usage,
): void {
  const content: ContentBlock[] = [{ type: "text", text: step.reasoning }];
  for (const call of step.calls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
  }
  const reply = session.addAssistant(content);
  session.recordUsage(usage(reply));
  if (step.calls.length === 0) return;
  session.addToolResults(
    step.calls.map((call) => ({
      type: "tool_result",
      toolUseId: call.id,
      content: call.output,
      isError: call.isError,
      compactSummary: call.compactSummary,
    })),
  );
}
