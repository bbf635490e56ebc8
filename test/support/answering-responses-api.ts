import OpenAI from "openai";
import { afterAll, beforeAll } from "vitest";
import { ResponsesApiServer, reasonedAnswer } from "./openai-responses-server.js";

/**
 * A loopback Responses API that answers every request it accepts with a reasoned "Done.", and
 * the real `openai` client of it, for the tests of one `describe` block: started before them,
 * closed after. Read `server` and `client` inside the tests.
 */
export function answeringResponsesApi(): {
  readonly server: ResponsesApiServer;
  readonly client: OpenAI;
} {
  let server: ResponsesApiServer | undefined;
  let client: OpenAI | undefined;
  beforeAll(async () => {
    server = await ResponsesApiServer.start((_request, ids) => ({
      output: reasonedAnswer(ids, "Done."),
    }));
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server?.close());
  return {
    get server() {
      if (server === undefined) throw new Error("the stand-in starts before the tests");
      return server;
    },
    get client() {
      if (client === undefined) throw new Error("the stand-in starts before the tests");
      return client;
    },
  };
}
