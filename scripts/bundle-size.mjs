// Measures the browser bundle of the built root entry (`dist/`) and of
// `{ AgentSession, ThresholdCompactor }`: minified and gzipped bytes, and the bytes attributed
// to each package (zod, uuid, p-timeout, ...) and to our own code, from esbuild's metafile.
// Run `npm run build` first; then `node scripts/bundle-size.mjs [--top N] [--neutral]` (`--neutral`:
// for a neutral runtime, an edge worker, as test/package/bundle.test.ts bundles it too).
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const platform = process.argv.includes("--neutral")
  ? { platform: "neutral", mainFields: ["module", "main"], conditions: ["worker"] }
  : { platform: "browser" };
const top = Number(process.argv[process.argv.indexOf("--top") + 1]) || 0;
const entries = {
  root: `export * from "./dist/index.js";`,
  pair: `export { AgentSession, ThresholdCompactor } from "./dist/index.js";`,
};

/** The package a bundled input belongs to, or "ours" for the package's own dist files. */
function owner(path) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match ? match[1] : "ours";
}

for (const [name, contents] of Object.entries(entries)) {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    ...platform,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const byOwner = {};
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    byOwner[owner(path)] = (byOwner[owner(path)] ?? 0) + bytesInOutput;
  }
  console.log(`${name}: ${code.length} bytes minified, ${gzipSync(code).length} gzipped`);
  for (const [who, bytes] of Object.entries(byOwner).sort((a, b) => b[1] - a[1])) {
    console.log(`  ${who.padEnd(20)} ${bytes}`);
  }
  if (top > 0) {
    const largest = Object.entries(inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
    for (const [path, { bytesInOutput }] of largest.slice(0, top)) {
      console.log(`    ${String(bytesInOutput).padStart(7)} ${path}`);
    }
  }
}
