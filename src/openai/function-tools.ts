import type { FunctionTool } from "openai/resources/responses/responses";

/** A tool's spec (`compactToolSpec()`, `recallToolSpec()`) as a Responses API function tool. */
export function functionTool<Name extends string, Schema extends Record<string, unknown>>(spec: {
  name: Name;
  description: string;
  schema: Schema;
}) {
  const { name, description, schema } = spec;
  return {
    type: "function" as const,
    name,
    description,
    parameters: schema,
    strict: false as const,
  } satisfies FunctionTool;
}
