import { expect } from "vitest";
import { AgentSession } from "../../src/session/agent-session.js";
import { refusedPaths } from "./refusals.js";

/** A session of one user request, waiting for a reply. */
export function askedSession(): AgentSession {
  const made = new AgentSession({ contextLimit: 100_000 });
  made.addUserText("fix it");
  return made;
}

/** A Messages API response: what another adapter's appender must refuse. */
export const ANTHROPIC_RESPONSE = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude",
  content: [{ type: "text", text: "I fixed it." }],
  stop_reason: "end_turn",
  usage: { input_tokens: 500, output_tokens: 5 },
};

/** A Responses API response: what another adapter's appender must refuse. */
export const RESPONSES_RESPONSE = {
  id: "resp_1",
  object: "response",
  output: [
    {
      type: "message",
      id: "m",
      role: "assistant",
      content: [{ type: "output_text", text: "I fixed it.", annotations: [] }],
    },
  ],
  usage: { input_tokens: 500, output_tokens: 5 },
};

/**
 * Expects `append` to refuse each wrong response at its path, leaving a fresh
 * {@link askedSession} as it was: its one message, its context.
 */
export function expectRefusedUntouched(
  append: (session: AgentSession, response: never) => unknown,
  wrong: readonly [unknown, string][],
): void {
  for (const [response, path] of wrong) {
    const target = askedSession();
    const before = target.contextUsed;
    expect(refusedPaths(() => append(target, response as never))).toEqual([path]);
    expect(target.messages).toHaveLength(1);
    expect(target.contextUsed).toBe(before);
  }
}
