import { createServer, Socket } from "node:net";

/** A loopback TCP proxy that can cut its connections, to drop a store's connection on cue. */
export interface TcpProxy {
  readonly port: number;
  /**
   * Cuts the connection carrying the next client chunk that `matches` (before forwarding it,
   * so the server never sees it), once; resolves when it has.
   */
  dropWhen(matches: (chunk: Buffer) => boolean): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port to `targetPort`. */
export function startProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let trigger: { matches: (chunk: Buffer) => boolean; done: () => void } | undefined;
  const server = createServer((client) => {
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const cut = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    upstream.connect(targetPort, "127.0.0.1");
    client.on("data", (chunk: Buffer) => {
      if (trigger?.matches(chunk)) {
        const { done } = trigger;
        trigger = undefined;
        cut();
        done();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    client.on("error", cut);
    upstream.on("error", cut);
    client.on("close", cut);
    upstream.on("close", cut);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({
        port,
        dropWhen: (matches) =>
          new Promise<void>((done) => {
            trigger = { matches, done };
          }),
        close: () =>
          new Promise<void>((closed) => {
            for (const [client, upstream] of pairs) {
              client.destroy();
              upstream.destroy();
            }
            server.close(() => closed());
          }),
      });
    });
  });
}
