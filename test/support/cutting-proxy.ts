/**
 * A TCP proxy on loopback that drops connections mid-answer: each of the first `cuts` connections
 * is destroyed once `cutAfter` bytes went back to the client, as a network fault would.
 */
import { connect, createServer, type Socket } from "node:net";

/** A running proxy. */
export interface CuttingProxy {
  endpoint: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Connections cut so far. */
  cuts(): number;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (`http://host:port`). */
export async function startCuttingProxy(
  target: string,
  rule: { cutAfter: number; cuts: number },
): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  let accepted = 0;
  let cutting = 0;
  let made = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const cuts = cutting < rule.cuts;
    if (cuts) cutting++;
    let sent = 0;
    upstream.on("data", (chunk: Buffer) => {
      if (cuts && sent === rule.cutAfter) return;
      if (cuts && sent + chunk.length >= rule.cutAfter) {
        // Everything up to the cut reaches the client, then the connection ends early.
        client.end(chunk.subarray(0, rule.cutAfter - sent));
        sent = rule.cutAfter;
        made++;
        upstream.destroy();
        return;
      }
      sent += chunk.length;
      client.write(chunk);
    });
    client.on("data", (chunk: Buffer) => upstream.write(chunk));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on("error", () => b.destroy());
      a.on("close", () => {
        sockets.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("proxy: no address");
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    connections: () => accepted,
    cuts: () => made,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
