/**
 * A message's own fields, besides its parts, as `fromModelMessages` reads them: a `system`
 * message carried whole, a message's `providerOptions`.
 */
import type { ValidationIssue } from "../core/errors.js";
import { type ContentBlock, type JsonObject, SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { normalizeJson, setProperty } from "../internal/json-value.js";
import { isPlainObject } from "../internal/plain-object.js";
import { AI_SDK_KEY } from "./parts-in.js";
import { aiSdkFields } from "./parts-out.js";

type Record_ = Record<string, unknown>;

/** Keeps a message's own `providerOptions` on its last block, where the way back finds them. */
export function keepMessageOptions(
  blocks: ContentBlock[],
  options: unknown,
  issues: ValidationIssue[],
  path: (string | number)[],
): void {
  if (options === undefined) return;
  if (!isPlainObject(options)) {
    issues.push({ path: [...path, "providerOptions"], message: "must be an object" });
    return;
  }
  const last = blocks.length - 1;
  const block = blocks[last];
  if (block === undefined) return;
  // Checked as JSON, a property holding `undefined` dropped (as the parts' options are).
  const kept = normalizeJson(options, [...path, "providerOptions"], issues) as JsonObject;
  if (block.type === "opaque") {
    blocks[last] = {
      type: "opaque",
      block: { ...block.block, [`${AI_SDK_KEY}:messageProviderOptions`]: kept },
    };
    return;
  }
  const fields = { ...aiSdkFields(block), messageProviderOptions: kept };
  blocks[last] = { ...block, extra: { ...block.extra, [AI_SDK_KEY]: fields } } as ContentBlock;
}

/**
 * A `system` message as the block that carries it verbatim: a JSON copy of its fields, not the
 * caller's object (a property holding `undefined` dropped, as JSON drops it, and as the other
 * messages' `providerOptions` are read); what JSON cannot hold is reported under its field.
 */
export function systemBlock(
  message: Record_,
  index: number,
  issues: ValidationIssue[],
): ContentBlock {
  const content = message["content"];
  if (typeof content !== "string")
    issues.push({ path: [index, "content"], message: "must be a string" });
  const carried: JsonObject = {};
  for (const key of Object.keys(message)) {
    // Each field read once (`content` read above): what was checked is what is kept.
    const value = key === "content" ? content : message[key];
    if (value === undefined || (key === "content" && typeof value !== "string")) continue;
    const path = [index, key];
    if (value === message) {
      issues.push({ path, message: "must not contain itself (circular reference)" });
      continue;
    }
    const json = normalizeJson(value, path, issues);
    if (json !== undefined) setProperty(carried, key, json);
  }
  return { type: "opaque", block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: carried } };
}
