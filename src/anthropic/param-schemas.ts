import * as z from "zod/mini";

/** Schema of a model name, as the adapter's options take it. */
export const ModelNameSchema = z
  .string({ error: "must be a string" })
  .check(z.minLength(1, "must be a non-empty model name"));

/** Schema of the `system` request parameter: a string or text blocks. */
export const SystemParamSchema = z.union([z.string(), z.array(z.record(z.string(), z.unknown()))], {
  error: "must be a string or an array of text blocks",
});

/** Schema of the `tools` request parameter. */
export const ToolsParamSchema = z.array(z.record(z.string(), z.unknown()), {
  error: "must be an array of tools",
});
