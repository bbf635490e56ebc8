import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "../../src/compactors/prompt.js";

/**
 * Random valid Anthropic conversations (`MessageParam[]`): roles alternate from the user,
 * tool results lead their user message, and every block type the Messages API takes
 * appears, with the optional fields present or absent and unknown fields and block types.
 */

type Wire = Record<string, unknown>;

const json = fc.jsonValue({ maxDepth: 2 });
const fieldName = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);

/** Unknown fields on a block: names the block does not use. */
function extras(modelled: readonly string[]): fc.Arbitrary<Wire> {
  return fc.dictionary(
    fieldName.filter((name) => !modelled.includes(name)),
    json,
    { maxKeys: 2 },
  );
}

/** A block with its modelled fields over some unknown ones (modelled ones win). */
function withExtras(base: fc.Arbitrary<Wire>, modelled: readonly string[]): fc.Arbitrary<Wire> {
  return fc
    .tuple(base, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, extras(modelled)))
    .map(([block, extra]) => ({ ...extra, ...block }));
}

const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  fc.string({ maxLength: 20 }).map((text) => `${SUMMARY_PREFIX}${text}`),
  fc.string({ maxLength: 20 }).map((text) => `${EARLIER_USER_MESSAGE_PREFIX}${text}`),
);

const cacheControl = fc.oneof(
  fc.constant({ type: "ephemeral" }),
  fc.record({ type: fc.constant("ephemeral"), ttl: fc.constantFrom("5m", "1h") }),
  fc.constant(null),
);

const citation = fc.record({
  type: fc.constant("char_location"),
  cited_text: fc.string({ maxLength: 10 }),
  document_index: fc.nat(3),
  document_title: fc.option(fc.string({ maxLength: 10 })),
  start_char_index: fc.nat(100),
  end_char_index: fc.nat(100),
});

const textBlock = withExtras(
  fc.record(
    {
      type: fc.constant("text"),
      text: anyText,
      cache_control: cacheControl,
      citations: fc.oneof(fc.constant(null), fc.array(citation, { maxLength: 2 })),
    },
    { requiredKeys: ["type", "text"] },
  ),
  ["type", "text"],
);

const imageSource = fc.oneof(
  fc.record({
    type: fc.constant("base64"),
    media_type: fc.constantFrom("image/png", "image/jpeg", "image/gif", "image/webp"),
    data: fc.base64String({ maxLength: 24 }),
  }),
  fc.record({ type: fc.constant("url"), url: fc.webUrl() }),
  fc.record({ type: fc.constant("file"), file_id: fc.string({ minLength: 1, maxLength: 12 }) }),
  // A source with a field we do not model: the whole image travels opaquely.
  fc.record({
    type: fc.constant("base64"),
    media_type: fc.constant("image/png"),
    data: fc.base64String({ maxLength: 8 }),
    detail: fc.constant("high"),
  }),
);

const imageBlock = withExtras(
  fc.record(
    { type: fc.constant("image"), source: imageSource, cache_control: cacheControl },
    { requiredKeys: ["type", "source"] },
  ),
  ["type", "source"],
);

const documentBlock = fc.record(
  {
    type: fc.constant("document"),
    source: fc.oneof(
      fc.record({
        type: fc.constant("text"),
        media_type: fc.constant("text/plain"),
        data: fc.string({ maxLength: 20 }),
      }),
      fc.record({
        type: fc.constant("base64"),
        media_type: fc.constant("application/pdf"),
        data: fc.base64String({ maxLength: 16 }),
      }),
      fc.record({ type: fc.constant("url"), url: fc.webUrl() }),
    ),
    title: fc.option(fc.string({ maxLength: 10 })),
    context: fc.option(fc.string({ maxLength: 10 })),
    citations: fc.record({ enabled: fc.boolean() }),
    cache_control: cacheControl,
  },
  { requiredKeys: ["type", "source"] },
);

const searchResultBlock = fc.record({
  type: fc.constant("search_result"),
  source: fc.webUrl(),
  title: fc.string({ maxLength: 10 }),
  content: fc.array(fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 10 }) }), {
    minLength: 1,
    maxLength: 2,
  }),
});

const unknownBlock = fc
  .tuple(fieldName, extras(["type"]))
  .map(([name, fields]) => ({ ...fields, type: `future_${name}` }));

const toolId = fc.stringMatching(/^toolu_[A-Za-z0-9]{1,10}$/);

const toolResultPart = fc.oneof(
  { weight: 3, arbitrary: textBlock },
  imageBlock,
  documentBlock,
  searchResultBlock,
  fc.record({ type: fc.constant("tool_reference"), tool_name: fc.string({ minLength: 1 }) }),
);

const toolResultBlock = withExtras(
  fc.record(
    {
      type: fc.constant("tool_result"),
      tool_use_id: toolId,
      content: fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constant(""),
        fc.array(toolResultPart, { maxLength: 3 }),
      ),
      is_error: fc.boolean(),
      cache_control: cacheControl,
    },
    { requiredKeys: ["type", "tool_use_id"] },
  ),
  ["type", "tool_use_id", "content", "is_error"],
);

const thinkingBlock = withExtras(
  fc.record({
    type: fc.constant("thinking"),
    thinking: fc.string({ unit: "binary", maxLength: 40 }),
    signature: fc.string({ unit: "binary", maxLength: 40 }),
  }),
  ["type", "thinking", "signature"],
);

const redactedThinkingBlock = fc.record({
  type: fc.constant("redacted_thinking"),
  data: fc.base64String({ maxLength: 40 }),
});

const toolUseBlock = withExtras(
  fc.record(
    {
      type: fc.constant("tool_use"),
      id: toolId,
      name: fc.stringMatching(/^[a-z_]{1,12}$/),
      input: fc.dictionary(fieldName, json, { maxKeys: 3 }),
      caller: fc.constant({ type: "direct" }),
      cache_control: cacheControl,
    },
    { requiredKeys: ["type", "id", "name", "input"] },
  ),
  ["type", "id", "name", "input"],
);

const serverToolUseBlock = fc.record({
  type: fc.constant("server_tool_use"),
  id: fc.stringMatching(/^srvtoolu_[a-z0-9]{1,8}$/),
  name: fc.constantFrom("web_search", "web_fetch", "code_execution"),
  input: fc.record({ query: fc.string({ maxLength: 10 }) }),
});

const webSearchToolResultBlock = fc.record({
  type: fc.constant("web_search_tool_result"),
  tool_use_id: fc.stringMatching(/^srvtoolu_[a-z0-9]{1,8}$/),
  content: fc.oneof(
    fc.array(
      fc.record({
        type: fc.constant("web_search_result"),
        url: fc.webUrl(),
        title: fc.string({ maxLength: 10 }),
        encrypted_content: fc.base64String({ maxLength: 16 }),
        page_age: fc.option(fc.string({ maxLength: 6 })),
      }),
      { maxLength: 2 },
    ),
    fc.record({
      type: fc.constant("web_search_tool_result_error"),
      error_code: fc.constant("unavailable"),
    }),
  ),
});

const compactionBlock = fc.record(
  {
    type: fc.constant("compaction"),
    content: fc.option(fc.string({ minLength: 1, maxLength: 20 })),
    encrypted_content: fc.option(fc.base64String({ maxLength: 20 })),
    cache_control: cacheControl,
  },
  { requiredKeys: ["type", "content"] },
);

const userBlock = fc.oneof(
  { weight: 4, arbitrary: textBlock },
  imageBlock,
  documentBlock,
  searchResultBlock,
  unknownBlock,
);

const assistantBlock = fc.oneof(
  { weight: 3, arbitrary: textBlock },
  thinkingBlock,
  redactedThinkingBlock,
  { weight: 2, arbitrary: toolUseBlock },
  serverToolUseBlock,
  webSearchToolResultBlock,
  compactionBlock,
  unknownBlock,
);

const userContent = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc
    .tuple(fc.array(toolResultBlock, { maxLength: 3 }), fc.array(userBlock, { maxLength: 3 }))
    .filter(([results, others]) => results.length + others.length > 0)
    .map(([results, others]) => [...results, ...others]),
);

const assistantContent = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.array(assistantBlock, { minLength: 1, maxLength: 4 }),
);

/**
 * `params` as the API takes them: each user message answers exactly the tool uses of the
 * assistant message before it (its results first, one per id, in order; none in the first), a
 * tool use id given once, and no message empty but a final assistant one.
 */
function paired(params: Wire[]): Wire[] {
  const seen = new Set<string>();
  let calls: string[] = [];
  return params.map((param, index) => {
    const { content } = param;
    const last = index === params.length - 1;
    if (param["role"] === "assistant") {
      const blocks = Array.isArray(content)
        ? (content as Wire[]).map((block) => {
            if (block["type"] !== "tool_use") return block;
            let id = String(block["id"]);
            while (seen.has(id)) id += "x";
            seen.add(id);
            return { ...block, id };
          })
        : content;
      calls = Array.isArray(blocks)
        ? blocks.filter((block) => block["type"] === "tool_use").map((block) => String(block["id"]))
        : [];
      return { ...param, content: blocks === "" && !last ? "." : blocks };
    }
    const blocks =
      typeof content === "string"
        ? content === ""
          ? []
          : [{ type: "text", text: content }]
        : (content as Wire[]);
    const results = blocks.filter((block) => block["type"] === "tool_result");
    const others = blocks.filter((block) => block["type"] !== "tool_result");
    const answers = calls.map((id, at) => ({
      ...(results[at] ?? { type: "tool_result" }),
      tool_use_id: id,
    }));
    calls = [];
    if (answers.length === 0 && typeof content === "string")
      return content === "" ? { ...param, content: "." } : param;
    const kept = [...answers, ...others];
    return { ...param, content: kept.length === 0 ? "." : kept };
  });
}

/** A random valid conversation as the SDK takes it. */
export const messageParams: fc.Arbitrary<MessageParam[]> = fc
  .array(fc.tuple(userContent, assistantContent), { minLength: 1, maxLength: 5 })
  .chain((pairs) =>
    fc.boolean().map((endsWithUser) => {
      const params: Wire[] = [];
      pairs.forEach(([user, assistant], index) => {
        params.push({ role: "user", content: user });
        if (index < pairs.length - 1 || !endsWithUser)
          params.push({ role: "assistant", content: assistant });
      });
      return paired(params) as unknown as MessageParam[];
    }),
  );
