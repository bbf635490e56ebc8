import * as z from "zod/mini";
import { freezeDeeply } from "../internal/frozen.js";
import { jsonObjectIssues, jsonValueIssues, normalizeJson } from "../internal/json-value.js";
import { duplicateIdIssues } from "../internal/unique-ids.js";
import { formatPath, invalidType, type ValidationIssue } from "./errors.js";
import type {
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  ImageSource,
  JsonObject,
  JsonValue,
  Message,
  OpaqueBlock,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
  TurnId,
  UserMessage,
} from "./message.js";
import { ISO_DATE_SCHEMA } from "./option-schemas.js";

/**
 * A schema of `T` valid when `issues` finds none; its message is the first, named by its path
 * within the value. A plain check, not a refinement: `z.compile` runs it inline.
 */
function checkedBy<T>(issues: (value: unknown) => ValidationIssue[]): z.ZodMiniType<T> {
  return z.custom<T>((value) => issues(value).length === 0, {
    error: ({ input }) => {
      const [first] = issues(input);
      if (first === undefined || first.path.length === 0) return first?.message;
      return `${formatPath(first.path)} ${first.message}`;
    },
  });
}

/**
 * A valid JSON value as the library keeps it: a frozen copy, so that nothing the caller holds
 * (the object it passed in, a request built from the history) can change what is kept.
 */
function ownedCopy<T extends JsonValue>(value: T): T {
  return freezeDeeply(normalizeJson(value, [], []) as T);
}

/**
 * Schema of a JSON value (finite numbers, plain objects, no cycles, at most
 * `MAX_JSON_DEPTH` levels deep); it parses to a frozen copy. A hand-written walk
 * rather than a recursive zod schema: its issue names the bad value's path within the value
 * (`input: range[1] must be a finite number`), and every schema that holds it stays free of
 * recursion, which `z.compile` needs (see `compiled-schema.ts`).
 */
export const JsonValueSchema: z.ZodMiniType<JsonValue> = z.pipe(
  checkedBy<JsonValue>(jsonValueIssues),
  z.transform(ownedCopy),
);

/** Schema of a JSON object; it parses to a frozen copy. */
export const JsonObjectSchema: z.ZodMiniType<JsonObject> = z.pipe(
  checkedBy<JsonObject>(jsonObjectIssues),
  z.transform(ownedCopy),
);

/** Schema of a {@link TurnId}. */
export const TurnIdSchema: z.ZodMiniType<TurnId> = z.object({
  owner: z.string().check(z.minLength(1, "must be a non-empty string")),
  number: z
    .number()
    // A refinement, not `z.int`: the same check and message, without zod's number formats
    // (1.4 kB of a session's bundle). It aborts as `z.int` does: no "0 or more" after it.
    .check(z.refine(Number.isSafeInteger, { error: "must be a whole number", abort: true }))
    .check(z.nonnegative("must be 0 or more")),
});

const extra = z.exactOptional(JsonObjectSchema);

const textBlock = z.object({
  type: z.literal("text"),
  text: z.string(),
  extra,
});
/** Schema of a {@link TextBlock}. */
export const TextBlockSchema: z.ZodMiniType<TextBlock> = textBlock;

/** Schema of an {@link ImageSource}. */
export const ImageSourceSchema: z.ZodMiniType<ImageSource> = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("base64"),
    mediaType: z.string().check(z.minLength(1)),
    data: z.string(),
  }),
  z.object({ type: z.literal("url"), url: z.string().check(z.minLength(1)) }),
  z.object({ type: z.literal("file"), fileId: z.string().check(z.minLength(1)) }),
]);

const imageBlock = z.object({
  type: z.literal("image"),
  source: ImageSourceSchema,
  extra,
});
/** Schema of an {@link ImageBlock}. */
export const ImageBlockSchema: z.ZodMiniType<ImageBlock> = imageBlock;

const thinkingBlock = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string(),
  extra,
});
/** Schema of a {@link ThinkingBlock}. */
export const ThinkingBlockSchema: z.ZodMiniType<ThinkingBlock> = thinkingBlock;

const redactedThinkingBlock = z.object({
  type: z.literal("redacted_thinking"),
  data: z.string(),
  extra,
});
/** Schema of a {@link RedactedThinkingBlock}. */
export const RedactedThinkingBlockSchema: z.ZodMiniType<RedactedThinkingBlock> =
  redactedThinkingBlock;

const toolUseBlock = z.object({
  type: z.literal("tool_use"),
  id: z.string().check(z.minLength(1, "must be a non-empty string")),
  name: z.string().check(z.minLength(1, "must be a non-empty string")),
  input: JsonObjectSchema,
  extra,
});
/** Schema of a {@link ToolUseBlock}. */
export const ToolUseBlockSchema: z.ZodMiniType<ToolUseBlock> = toolUseBlock;

const opaqueBlock = z.object({
  type: z.literal("opaque"),
  block: JsonObjectSchema,
});
/** Schema of an {@link OpaqueBlock}. */
export const OpaqueBlockSchema: z.ZodMiniType<OpaqueBlock> = opaqueBlock;

/** Schema of what a tool result may contain. */
export const ToolResultContentBlockSchema: z.ZodMiniType<ToolResultContentBlock> =
  z.discriminatedUnion("type", [textBlock, imageBlock, opaqueBlock]);

const toolResultBlock = z.object({
  type: z.literal("tool_result"),
  toolUseId: z.string().check(z.minLength(1, "must be a non-empty string")),
  content: z.union([z.string(), z.array(ToolResultContentBlockSchema)]),
  isError: z.boolean(),
  compactSummary: z.exactOptional(z.string()),
  extra,
});
/** Schema of a {@link ToolResultBlock}. */
export const ToolResultBlockSchema: z.ZodMiniType<ToolResultBlock> = toolResultBlock;

/** Schema of any {@link ContentBlock}. */
export const ContentBlockSchema: z.ZodMiniType<ContentBlock> = z.discriminatedUnion("type", [
  textBlock,
  imageBlock,
  thinkingBlock,
  redactedThinkingBlock,
  toolUseBlock,
  toolResultBlock,
  opaqueBlock,
]);

const contentBlocks = z.array(ContentBlockSchema);

/**
 * The one definition of a message's fields, every message schema built from it: `date` reads
 * `createdAt` (a `Date`, or an ISO string in a snapshot), `content` its blocks (at least one,
 * or any number for the lenient shape that reports an empty message as a problem).
 */
function messageFields<D extends z.ZodMiniType<Date, unknown>>(
  date: D,
  content: z.ZodMiniType<ContentBlock[]> = contentBlocks.check(
    z.minLength(1, "must hold at least one block"),
  ),
) {
  return {
    id: z.string().check(z.minLength(1, "must be a non-empty string")),
    sessionId: z.string().check(z.minLength(1, "must be a non-empty string")),
    turnId: TurnIdSchema,
    createdAt: date,
    content,
    generated: z.exactOptional(z.enum(["summary", "continuation", "notice"])),
  };
}

/** A message schema of the user's and the assistant's role, from {@link messageFields}. */
function byRole<D extends z.ZodMiniType<Date, unknown>>(date: D) {
  return {
    user: z.object({ role: z.literal("user"), ...messageFields(date) }),
    assistant: z.object({ role: z.literal("assistant"), ...messageFields(date) }),
  };
}

/**
 * A `Date` that is valid; an Invalid Date is refused as `must be a valid date`, anything else as
 * zod's `z.date()` words it. A plain check, not `z.date()`: 0.4 kB less in a session's bundle.
 */
const validDate = z.custom<Date>(
  (value) => value instanceof Date && !Number.isNaN(value.getTime()),
  {
    error: ({ input }) =>
      input instanceof Date ? "must be a valid date" : invalidType("date", input),
  },
);
const live = byRole(validDate);

/** Schema of a {@link UserMessage}. */
export const UserMessageSchema: z.ZodMiniType<UserMessage> = live.user;

/** Schema of an {@link AssistantMessage}. */
export const AssistantMessageSchema: z.ZodMiniType<AssistantMessage> = live.assistant;

/** Schema of a {@link Message}. */
export const MessageSchema: z.ZodMiniType<Message> = z.discriminatedUnion("role", [
  live.user,
  live.assistant,
]);

/** Schema of a list of messages whose ids are unique. */
export const MessagesSchema: z.ZodMiniType<Message[]> = z.array(MessageSchema).check(
  z.superRefine((messages, context) => {
    for (const issue of duplicateIdIssues(messages)) context.addIssue({ code: "custom", ...issue });
  }),
);

const stored = byRole(z.pipe(ISO_DATE_SCHEMA, validDate));

/** Schema of a message as stored in a JSON snapshot (`createdAt` as an ISO string). */
export const SerializedMessageSchema: z.ZodMiniType<Message, unknown> = z.discriminatedUnion(
  "role",
  [stored.user, stored.assistant],
);

/**
 * Schema of a message as `validateConversation` takes it: the fields of {@link MessageSchema},
 * but an empty `content` is an API problem to report, not a malformed message.
 */
export const LenientMessageSchema: z.ZodMiniType<Message> = /* @__PURE__ */ (() =>
  z.object({
    role: z.enum(["user", "assistant"], { error: 'must be "user" or "assistant"' }),
    ...messageFields(validDate, contentBlocks),
  }))();

/** Schema of what `validateConversation` takes: messages whose content may be empty. */
export const LenientMessagesSchema: z.ZodMiniType<Message[]> = /* @__PURE__ */ z.array(
  LenientMessageSchema,
  {
    error: "must be an array of messages",
  },
);
