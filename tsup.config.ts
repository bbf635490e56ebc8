import { defineConfig } from "tsup";

const entry = {
  index: "src/index.ts",
  "anthropic/index": "src/anthropic/index.ts",
  "testing/index": "src/testing/index.ts",
  "schemas/index": "src/schemas/index.ts",
  "store/index": "src/store/index.ts",
  "file-store/index": "src/file-store/index.ts",
  "redis/index": "src/redis/index.ts",
  "postgres/index": "src/postgres/index.ts",
  "otel/index": "src/otel/index.ts",
  "models/index": "src/models/index.ts",
  "langchain/index": "src/langchain/index.ts",
  "ai-sdk/index": "src/ai-sdk/index.ts",
  "openai/index": "src/openai/index.ts",
  "chat-completions/index": "src/chat-completions/index.ts",
  "gemini/index": "src/gemini/index.ts",
};

export default defineConfig([
  {
    entry,
    format: ["esm"],
    // Declarations come from tsc (scripts/build-types.mjs): tsup's bundled .d.ts files name
    // shared types by chunk aliases (`import("./llm-client-DpTQAiWV").g`) in users' errors.
    dts: false,
    sourcemap: true,
    clean: true,
    target: "node20",
    treeshake: true,
  },
  {
    entry,
    format: ["cjs"],
    // One shared chunk, so the error classes are the same objects in every entry.
    splitting: true,
    dts: false,
    sourcemap: true,
    target: "node20",
    // uuid and p-timeout ship ESM only; bundle them so require() works without require(esm).
    noExternal: ["uuid", "p-timeout"],
  },
]);
