/**
 * `npm run demo`: an offline agent session that crosses the compaction threshold several
 * times. No network, no key: a scripted agent, canned tool outputs and `MockLlmClient`
 * summaries. Prints each compaction, a chart of context per request and the tokens saved.
 */
import { runDemo } from "./demo-session.js";

await runDemo({ write: (line) => process.stdout.write(`${line}\n`) });
