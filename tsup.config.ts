import { defineConfig } from "tsup";

const entry = {
  index: "src/index.ts",
  "anthropic/index": "src/anthropic/index.ts",
  "testing/index": "src/testing/index.ts",
};

export default defineConfig([
  {
    entry,
    format: ["esm"],
    dts: true,
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
    dts: true,
    sourcemap: true,
    target: "node20",
    // uuid and p-timeout ship ESM only; bundle them so require() works without require(esm).
    noExternal: ["uuid", "p-timeout"],
  },
]);
