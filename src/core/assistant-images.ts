import { isSystemMessage } from "./conversation-structure.js";
import type { ContentBlock, Message } from "./message.js";

// The Messages API refuses an `image` block in an assistant turn: "messages.1.content: 'image'
// blocks are not permitted within assistant turns" (its 400, as users measured it against the
// live API and reported it: SEMOSS/Semoss#2323, epam/ai-dial-adapter-bedrock#306). The docs
// show images in user messages only ("Starting with Claude 3 models, you can also send image
// content blocks", a `"role": "user"` example) and say nothing of assistant turns. So another
// model's image in an assistant message (a Gemini image model's reply, a LangChain `AIMessage`'s)
// goes where the Chat Completions writer puts it: in the user message after it.

const isImage = (block: ContentBlock) => block.type === "image";

/** Whether a message is an assistant message (not a system one) holding an image. */
const holdsImages = (message: Message) =>
  message.role === "assistant" && !isSystemMessage(message) && message.content.some(isImage);

/**
 * Whether an assistant message of `messages` (from `start` up to `end`) holds an image: a plain
 * walk of their blocks, as every conversion asks and almost every answer is no.
 */
export function anyAssistantImage(
  messages: readonly Message[],
  start = 0,
  end = messages.length,
): boolean {
  for (let index = start; index < end; index += 1) {
    const message = messages[index]!;
    if (message.role !== "assistant") continue;
    const { content } = message;
    for (let block = 0; block < content.length; block += 1)
      if (content[block]!.type === "image") return true;
  }
  return false;
}

/** How many tool results a message's content starts with. */
function leadingResults(content: readonly ContentBlock[]): number {
  let count = 0;
  while (content[count]?.type === "tool_result") count += 1;
  return count;
}

/**
 * Walks `messages` as the API takes their images: each assistant message's images wait for the
 * next user message that is not a system message, and go after the tool results it starts with
 * (`receive`), or after the last message (`rest`); `keep` is told of every message but an
 * assistant message of images alone, which is left out (its neighbours join, as the API joins
 * consecutive turns of one role).
 */
export function placeImages(
  messages: readonly Message[],
  keep: (message: Message, index: number) => void,
  receive: (message: Message, index: number, images: ContentBlock[]) => void,
  rest: (images: ContentBlock[], from: number) => void,
): void {
  let waiting: ContentBlock[] = [];
  let from = 0;
  messages.forEach((message, index) => {
    if (holdsImages(message)) {
      if (waiting.length === 0) from = index;
      waiting = [...waiting, ...message.content.filter(isImage)];
      if (!message.content.every(isImage)) keep(message, index);
    } else if (waiting.length > 0 && message.role === "user" && !isSystemMessage(message)) {
      receive(message, index, waiting);
      waiting = [];
    } else keep(message, index);
  });
  if (waiting.length > 0) rest(waiting, from);
}

/**
 * Our messages with their assistant messages' images where the Messages API takes them: in the
 * next user message that is not a system message, after the tool results it starts with (so
 * after the results of the calls beside the image), or in a user message of their own at the
 * end; an assistant message of images alone is left out, its neighbours joined. The same array
 * when no assistant message holds an image (the common case: one walk, nothing made).
 */
export function withAssistantImagesMoved(messages: readonly Message[]): readonly Message[] {
  if (!anyAssistantImage(messages)) return messages;
  const out: Message[] = [];
  placeImages(
    messages,
    (message) => {
      out.push(
        holdsImages(message)
          ? { ...message, content: message.content.filter((block) => !isImage(block)) }
          : message,
      );
    },
    (message, _index, images) => {
      const { content } = message;
      const lead = leadingResults(content);
      out.push({
        ...message,
        content: [...content.slice(0, lead), ...images, ...content.slice(lead)],
      });
    },
    (images, from) => {
      out.push({ ...messages[from]!, role: "user", content: images });
    },
  );
  return out;
}
