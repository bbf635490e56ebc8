/**
 * A `message` response as the Messages API streams it when the request asks (`stream: true`):
 * server-sent events, as the streaming guide sets them out
 * (platform.claude.com/docs/en/build-with-claude/streaming): `message_start` (the message with
 * empty content and the input usage), then per content block `content_block_start`, its deltas
 * (`text_delta`; `thinking_delta` then `signature_delta`; `input_json_delta` with the tool
 * input's JSON) and `content_block_stop`, then `message_delta` (stop reason and usage) and
 * `message_stop`. A block without deltas (`redacted_thinking`, server tool blocks) arrives whole
 * in its `content_block_start`.
 */

type Block = Record<string, unknown>;

/** A block's `content_block_start` payload and its deltas. */
function blockEvents(block: Block): { start: Block; deltas: Block[] } {
  switch (block["type"]) {
    case "text": {
      const { text, ...rest } = block;
      return { start: { ...rest, text: "" }, deltas: [{ type: "text_delta", text }] };
    }
    case "thinking": {
      const { thinking, signature, ...rest } = block;
      return {
        start: { ...rest, thinking: "", signature: "" },
        deltas: [
          { type: "thinking_delta", thinking },
          { type: "signature_delta", signature },
        ],
      };
    }
    case "tool_use": {
      const { input, ...rest } = block;
      return {
        start: { ...rest, input: {} },
        deltas: [{ type: "input_json_delta", partial_json: JSON.stringify(input ?? {}) }],
      };
    }
    default:
      return { start: block, deltas: [] };
  }
}

/** The server-sent events of a `message` response body. */
export function messageEvents(message: Record<string, unknown>): string {
  const content = (message["content"] ?? []) as Block[];
  const usage = (message["usage"] ?? {}) as Record<string, unknown>;
  const events: Block[] = [
    {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
  ];
  content.forEach((block, index) => {
    const { start, deltas } = blockEvents(block);
    events.push({ type: "content_block_start", index, content_block: start });
    for (const delta of deltas) events.push({ type: "content_block_delta", index, delta });
    events.push({ type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: message["stop_reason"] ?? null, stop_sequence: null },
      usage,
    },
    { type: "message_stop" },
  );
  return events
    .map((event) => `event: ${String(event["type"])}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
}
