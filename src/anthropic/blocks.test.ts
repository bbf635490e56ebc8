import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trajectoryArbitrary } from "../../test/arbitraries/trajectory.js";
import { seed } from "../../test/properties/invariants.js";
import { keyOrder } from "../../test/support/quick-path.js";
import { ValidationError } from "../core/errors.js";
import type { ContentBlock } from "../core/message.js";
import { toolResultBlock } from "../testing/builders.js";
import {
  contentFromWire,
  fromAnthropicContent,
  isStringContent,
  STRING_CONTENT_KEY,
  toAnthropicContent,
} from "./blocks.js";

describe("fromAnthropicContent / toAnthropicContent: each block", () => {
  it("keeps text with cache_control and citations in extra", () => {
    const block = {
      type: "text",
      text: "see the doc",
      cache_control: { type: "ephemeral", ttl: "1h" },
      citations: [
        {
          type: "char_location",
          cited_text: "doc",
          document_index: 0,
          document_title: null,
          start_char_index: 0,
          end_char_index: 3,
        },
      ],
    } as const;
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toEqual({
      type: "text",
      text: "see the doc",
      extra: { cache_control: block.cache_control, citations: block.citations },
    });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it("maps the three image sources and keeps other image fields in extra", () => {
    const blocks = [
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
        cache_control: { type: "ephemeral" },
      },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      { type: "image", source: { type: "file", file_id: "file_011" } },
    ] as const;
    const ours = fromAnthropicContent(blocks);
    expect(ours).toEqual([
      {
        type: "image",
        source: { type: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" },
        extra: { cache_control: { type: "ephemeral" } },
      },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      { type: "image", source: { type: "file", fileId: "file_011" } },
    ]);
    expect(toAnthropicContent(ours)).toEqual(blocks);
  });

  it("carries an image whose source we do not model as an opaque block", () => {
    const block = {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: "AA==", detail: "high" },
    };
    expect(fromAnthropicContent([block])).toEqual([{ type: "opaque", block }]);
    const future = { type: "image", source: { type: "content", items: [] } };
    expect(fromAnthropicContent([future])).toEqual([{ type: "opaque", block: future }]);
  });

  it("keeps a thinking signature byte for byte, and redacted thinking", () => {
    const signature =
      "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\u0000\u{1F600}\uD800 \n";
    const blocks = [
      { type: "thinking", thinking: "Let me think…", signature },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw" },
    ] as const;
    const ours = fromAnthropicContent(blocks);
    expect(ours[0]).toEqual({ type: "thinking", thinking: "Let me think…", signature });
    const back = toAnthropicContent(ours);
    expect(back).toEqual(blocks);
    expect((back[0] as { signature: string }).signature).toBe(signature);
  });

  it("keeps tool_use fields we do not model (caller, cache_control) in extra", () => {
    const block = {
      type: "tool_use",
      id: "toolu_01",
      name: "read_file",
      input: { path: "a.ts", options: { lines: [1, 2] } },
      caller: { type: "direct" },
      cache_control: { type: "ephemeral" },
    } as const;
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toEqual({
      type: "tool_use",
      id: "toolu_01",
      name: "read_file",
      input: block.input,
      extra: { caller: { type: "direct" }, cache_control: { type: "ephemeral" } },
    });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it.each([
    [
      "string content, no is_error",
      { content: "42 files" },
      { content: "42 files", isError: false },
    ],
    ["is_error true", { content: "boom", is_error: true }, { content: "boom", isError: true }],
    [
      "is_error false (kept apart from absent)",
      { content: "ok", is_error: false },
      { content: "ok", isError: false, extra: { is_error: false } },
    ],
    ["content absent", {}, { content: "", isError: false }],
    [
      "content empty string",
      { content: "" },
      { content: "", isError: false, extra: { content: "" } },
    ],
    ["content empty array", { content: [] }, { content: [], isError: false }],
  ])("round-trips a tool_result with %s", (_name, fields, expected) => {
    const block = { type: "tool_result", tool_use_id: "toolu_01", ...fields };
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toEqual({ type: "tool_result", toolUseId: "toolu_01", ...expected });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it("round-trips tool_result array content with text, image and parts we do not model", () => {
    const block = {
      type: "tool_result",
      tool_use_id: "toolu_02",
      is_error: true,
      cache_control: { type: "ephemeral" },
      content: [
        { type: "text", text: "screenshot:", citations: null },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/" } },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
        { type: "search_result", source: "https://x.dev", title: "X", content: [] },
        { type: "tool_reference", tool_name: "grep" },
      ],
    };
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toMatchObject({
      type: "tool_result",
      isError: true,
      extra: { cache_control: { type: "ephemeral" } },
      content: [
        { type: "text", text: "screenshot:", extra: { citations: null } },
        { type: "image", source: { type: "base64", mediaType: "image/jpeg", data: "/9j/" } },
        { type: "opaque", block: block.content[2] },
        { type: "opaque", block: block.content[3] },
        { type: "opaque", block: block.content[4] },
      ],
    });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it("carries server-tool, compaction, document and unknown blocks opaquely", () => {
    const blocks = [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [
          {
            type: "web_search_result",
            url: "https://x.dev",
            title: "X",
            encrypted_content: "abc",
            page_age: null,
          },
        ],
      },
      { type: "compaction", content: null, encrypted_content: "ZW5j" },
      { type: "compaction", content: "summary so far", encrypted_content: null },
      { type: "document", source: { type: "url", url: "https://x.dev/a.pdf" }, title: null },
      { type: "container_upload", file_id: "file_1" },
      { type: "hologram_2031", payload: { depth: 3, frames: [1, -0, 2.5] } },
    ];
    const ours = fromAnthropicContent(blocks);
    expect(ours.every((block) => block.type === "opaque")).toBe(true);
    expect(toAnthropicContent(ours)).toEqual(blocks);
  });

  it("drops our own fields (compactSummary) on the way out", () => {
    const result = toolResultBlock("toolu_1", "long output", { compactSummary: "short" });
    expect(toAnthropicContent([result])).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "long output" },
    ]);
  });

  it("lets modelled fields win over a stray copy in extra", () => {
    const block: ContentBlock = {
      type: "text",
      text: "real",
      extra: { text: "stale", type: "image", cache_control: { type: "ephemeral" } },
    };
    expect(toAnthropicContent([block])).toEqual([
      { type: "text", text: "real", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("treats undefined fields as absent, as JSON does", () => {
    const [ours] = fromAnthropicContent([
      { type: "text", text: "a", cache_control: undefined, citations: undefined },
    ]);
    expect(ours).toEqual({ type: "text", text: "a" });
  });

  it("copies its input: later changes to the params do not reach our blocks", () => {
    const input = { path: "a.ts" };
    const [ours] = fromAnthropicContent([{ type: "tool_use", id: "t", name: "n", input }]);
    input.path = "changed";
    expect(ours).toMatchObject({ input: { path: "a.ts" } });
  });

  it("keeps a __proto__ key as data, never as a prototype", () => {
    const block = JSON.parse('{"type":"x_block","__proto__":{"polluted":true}}');
    const [ours] = fromAnthropicContent([block]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.keys((ours as { block: object }).block)).toEqual(["type", "__proto__"]);
    expect(JSON.stringify(toAnthropicContent([ours!]))).toBe(JSON.stringify([block]));
  });

  it("rejects content that is not an array in fromAnthropicContent", () => {
    expect(() => fromAnthropicContent(42 as never)).toThrow(ValidationError);
  });
});

describe("string content", () => {
  it("becomes one text block marked as string content, and is recognised as such", () => {
    const blocks = fromAnthropicContent("hi");
    expect(blocks).toEqual([{ type: "text", text: "hi", extra: { [STRING_CONTENT_KEY]: true } }]);
    expect(contentFromWire("hi")).toEqual(blocks);
    expect(isStringContent(blocks)).toBe(true);
  });

  it("is only one text block that carries the marker alone", () => {
    const marked: ContentBlock = { type: "text", text: "a", extra: { [STRING_CONTENT_KEY]: true } };
    expect(isStringContent([{ type: "text", text: "a" }])).toBe(false);
    expect(isStringContent([marked, marked])).toBe(false);
    expect(
      isStringContent([{ ...marked, extra: { [STRING_CONTENT_KEY]: true, cache_control: null } }]),
    ).toBe(false);
  });

  it("never sends the marker", () => {
    expect(toAnthropicContent(fromAnthropicContent("hi"))).toEqual([{ type: "text", text: "hi" }]);
  });
});

describe("toAnthropicContent: the order of a block's fields", () => {
  it("writes the type, the unmodelled fields, then the modelled ones, bookkeeping left out", () => {
    const blocks = fromAnthropicContent([
      { type: "text", text: "a", cache_control: { type: "ephemeral" } },
      {
        type: "image",
        source: { type: "url", url: "https://example.com/a.png" },
        cache_control: { type: "ephemeral" },
      },
      {
        type: "tool_result",
        tool_use_id: "t1",
        content: [{ type: "text", text: "out", citations: null }],
        is_error: true,
        cache_control: { type: "ephemeral" },
      },
    ]);
    const [text] = blocks;
    if (text?.type === "text") text.extra = { ...text.extra, "aiSdk:providerOptions": {} };
    expect(JSON.stringify(toAnthropicContent(blocks))).toBe(
      JSON.stringify([
        { type: "text", cache_control: { type: "ephemeral" }, text: "a" },
        {
          type: "image",
          cache_control: { type: "ephemeral" },
          source: { type: "url", url: "https://example.com/a.png" },
        },
        {
          type: "tool_result",
          cache_control: { type: "ephemeral" },
          tool_use_id: "t1",
          content: [{ type: "text", citations: null, text: "out" }],
          is_error: true,
        },
      ]),
    );
  });
});

describe("toAnthropicContent: a block without extra, built whole", () => {
  /** The block with an empty `extra`: it takes the general path, field by field. */
  const withEmptyExtra = (block: ContentBlock): ContentBlock =>
    block.type === "opaque" ? block : ({ ...block, extra: {} } as ContentBlock);

  it("writes what the general path writes, in its key order", () => {
    let plain = 0;
    fc.assert(
      fc.property(trajectoryArbitrary(), (messages) => {
        for (const message of messages)
          for (const block of message.content) {
            if (block.type === "opaque" || block.extra !== undefined) continue;
            plain += 1;
            expect(keyOrder(toAnthropicContent([block]))).toEqual(
              keyOrder(toAnthropicContent([withEmptyExtra(block)])),
            );
          }
      }),
      { seed: seed(20_261_214), numRuns: 100 },
    );
    expect(plain).toBeGreaterThan(1000);
  });

  it("writes each tool result form as the general path does", () => {
    for (const content of ["", "out", [{ type: "text" as const, text: "x" }]])
      for (const isError of [false, true]) {
        const block: ContentBlock = { type: "tool_result", toolUseId: "t1", content, isError };
        expect(keyOrder(toAnthropicContent([block]))).toEqual(
          keyOrder(toAnthropicContent([withEmptyExtra(block)])),
        );
      }
    const thinking: ContentBlock = { type: "thinking", thinking: "t", signature: "s" };
    const redacted: ContentBlock = { type: "redacted_thinking", data: "d" };
    for (const block of [thinking, redacted])
      expect(keyOrder(toAnthropicContent([block]))).toEqual(
        keyOrder(toAnthropicContent([withEmptyExtra(block)])),
      );
  });
});
