import { type ApiProblem, isRecord } from "./wire.js";

/**
 * The Messages API's rules on `tool_choice`. From the tool use docs ("Define tools",
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools, read 2026-12
 * through stored copies):
 * - "When working with the `tool_choice` parameter, there are four possible options: `auto`
 *   allows Claude to decide whether to call any provided tools or not. This is the default value
 *   when `tools` are provided. `any` tells Claude that it must use one of the provided tools [...]
 *   `tool` forces Claude to always use a particular tool. `none` prevents Claude from using any
 *   tools. This is the default value when no `tools` are provided." So `none` with tools is a
 *   valid request. (A scripted reply is answered as scripted: a test may play a model that calls
 *   a tool anyway.)
 * - "When using extended thinking with tool use, `tool_choice: {"type": "any"}` and
 *   `tool_choice: {"type": "tool", "name": "..."}` are not supported and will result in an
 *   error. Only `tool_choice: {"type": "auto"}` (the default) and `tool_choice: {"type":
 *   "none"}` are compatible with extended thinking." (The error's words are ours.)
 * - "When using prompt caching, changes to the `tool_choice` parameter will invalidate cached
 *   message blocks. Tool definitions and system prompts remain cached" (`prompt-cache.ts`).
 *
 * Not in the docs, the API's words as users reported them (R): a `tool_choice` on a request
 * without `tools` is refused, "tool_choice may only be specified while providing tools"
 * (OpenRouter's and autogen's Anthropic clients drop it for that reason; the docs only say
 * `none` is the default there). The stand-in refuses every type, `none` included: stricter than
 * the API at worst, and the library never sends one without tools.
 */

const TYPES = new Set(["auto", "any", "tool", "none"]);
const FORCED = new Set(["any", "tool"]);

const invalid = (message: string): ApiProblem => ({ status: 400, message });

/** Whether a request thinks by its `thinking` parameter (extended or adaptive thinking). */
function thinks(body: Record<string, unknown>): boolean {
  const thinking = body["thinking"];
  return isRecord(thinking) && (thinking["type"] === "enabled" || thinking["type"] === "adaptive");
}

/** What the API refuses a request's `tool_choice` for, or `undefined`. */
export function toolChoiceProblem(body: unknown): ApiProblem | undefined {
  if (!isRecord(body) || body["tool_choice"] === undefined) return undefined;
  const choice = body["tool_choice"];
  const type = isRecord(choice) ? choice["type"] : undefined;
  if (typeof type !== "string" || !TYPES.has(type)) {
    return invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
  }
  const tools = body["tools"];
  if (!Array.isArray(tools) || tools.length === 0) {
    return invalid(`tool_choice.${type} may only be specified while providing tools`);
  }
  if (type === "tool") {
    const name = (choice as Record<string, unknown>)["name"];
    if (!tools.some((tool) => isRecord(tool) && tool["name"] === name)) {
      return invalid(`tool_choice.name: no tool named ${JSON.stringify(name)} in tools`);
    }
  }
  if (FORCED.has(type) && thinks(body)) {
    return invalid(
      `tool_choice: type "${type}" is not supported with extended thinking: use "auto" or "none"`,
    );
  }
  return undefined;
}
