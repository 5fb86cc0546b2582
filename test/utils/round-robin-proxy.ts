import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP load balancer without stickiness: each request goes to the next target in turn. */
export interface RoundRobinProxy {
  url: URL;
  /** Where each request went, in order (`"POST 1"`: a POST to the second target). */
  log: string[];
  /** Replaces the targets (a restarted process listens on a new port). */
  setTargets(targets: URL[]): void;
  close(): Promise<void>;
}

/** Starts a round-robin proxy on loopback in front of `targets` (same path on each). */
export async function startRoundRobinProxy(targets: URL[]): Promise<RoundRobinProxy> {
  let current = targets;
  let next = 0;
  const log: string[] = [];
  const server: Server = createServer((incoming: IncomingMessage, outgoing) => {
    const index = next++ % current.length;
    const target = current[index];
    log.push(`${incoming.method} ${index}`);
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${targets[0].pathname}`),
    log,
    setTargets: (targets) => {
      current = targets;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
