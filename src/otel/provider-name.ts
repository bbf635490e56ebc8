import { modelOf } from "../models/model-table.js";

/**
 * `gen_ai.provider.name` for a model of the library's table, by its name as the client sends it
 * (the GenAI conventions' well-known values): a Bedrock name (`us.anthropic.…`, an ARN) is
 * `aws.bedrock`, a Vertex one (`claude-…@date`, `publishers/…`) `gcp.vertex_ai`, any other by
 * its maker: `anthropic`, `openai`, or `gcp.gemini` (the Gemini API, whose prices the table
 * holds). `undefined` for a model the table does not know, or one named through a gateway
 * (`anthropic/claude-…`): the provider is the gateway's, which the name does not tell.
 */
export function providerOfModel(model: string): string | undefined {
  const known = modelOf(model);
  if (known === undefined) return undefined;
  const name = model.trim().toLowerCase();
  if (name.startsWith("arn:aws:bedrock") || name.includes("anthropic.")) return "aws.bedrock";
  if (name.includes("@") || name.includes("publishers/")) return "gcp.vertex_ai";
  const slash = name.lastIndexOf("/");
  // The Gemini API names its models `models/…`; any other prefix is a gateway's route.
  if (slash >= 0 && name.slice(0, slash) !== "models") return undefined;
  if (known.id.startsWith("claude-")) return "anthropic";
  return known.id.startsWith("gemini-") ? "gcp.gemini" : "openai";
}
