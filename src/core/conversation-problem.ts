/** What is wrong with a conversation, as the API it goes to would reject it. */
export type ConversationProblemCode =
  /** The request has no messages. */
  | "empty_conversation"
  /** More messages than one request may carry (100,000). */
  | "too_many_messages"
  /** The first message is not from the user (nor led by the API's `compaction` block). */
  | "first_message_not_user"
  /**
   * A mid-conversation system message out of place: first, not right after a user turn (or an
   * assistant turn ending in a server tool result), before a message other than an assistant
   * turn, or sharing its message with other blocks.
   */
  | "misplaced_system_message"
  /** A message with no blocks (only the final assistant message may be empty). */
  | "empty_content"
  /** A text block with no text. */
  | "empty_text"
  /** A text block of whitespace only. */
  | "whitespace_text"
  /** The final assistant message ends with whitespace (a prefill the API refuses). */
  | "trailing_whitespace"
  /** A `tool_result` block in an assistant message. */
  | "tool_result_in_assistant_message"
  /** A block only the assistant produces (`tool_use`, thinking) in a user message. */
  | "assistant_block_in_user_message"
  /** A `tool_result` block after other content in its user message. */
  | "tool_result_not_first"
  /** A `tool_use` without its `tool_result` in the very next message. */
  | "missing_tool_result"
  /** A `tool_result` without its `tool_use` in the message right before it. */
  | "orphan_tool_result"
  /** Two `tool_result` blocks for the same `tool_use`. */
  | "duplicate_tool_result"
  /** Two `tool_use` blocks with the same id. */
  | "duplicate_tool_use_id"
  /** A server-tool result (`web_search_tool_result`, …) without its `server_tool_use` before it in the same message. */
  | "orphan_server_tool_result"
  /** OpenAI: a reasoning item not followed, in its message, by the item it was produced with. */
  | "reasoning_without_following_item"
  /** OpenAI: a compaction item between a function call and its output. */
  | "misplaced_compaction"
  /** Gemini: a function call turn that does not come right after a user turn. */
  | "misplaced_function_call"
  /** Gemini 3 and later: a function call turn of the current turn without its thought signature. */
  | "missing_thought_signature";

/** One problem found by {@link validateConversation}. */
export interface ConversationProblem {
  /** What is wrong. */
  code: ConversationProblemCode;
  /** Index of the offending message, when one is to blame. */
  messageIndex?: number;
  /** Index of the offending block in that message, when one is to blame. */
  blockIndex?: number;
  /** The tool use id concerned, for tool pairing problems. */
  toolUseId?: string;
  /** What the API says, in its own words where they are known (`messages.3.content.0: …`). */
  message: string;
}
