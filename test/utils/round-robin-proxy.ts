import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP load balancer without stickiness: each request goes to the next target in turn. */
export interface RoundRobinProxy {
  url: URL;
  /** Where each request went, in order (`"POST 1"`: a POST to the second target). */
  log: string[];
  /** Requests of `method` whose response has not closed yet (a GET: an open stream). */
  open(method: string): number;
  /** Replaces the targets (a restarted process listens on a new port). */
  setTargets(targets: URL[]): void;
  close(): Promise<void>;
}

/** Starts a round-robin proxy on loopback in front of `targets` (same path on each). */
export async function startRoundRobinProxy(targets: URL[]): Promise<RoundRobinProxy> {
  let current = targets;
  let next = 0;
  const log: string[] = [];
  const open = new Map<string, number>();
  const server: Server = createServer((incoming: IncomingMessage, outgoing) => {
    const index = next++ % current.length;
    const target = current[index];
    const method = incoming.method ?? '';
    log.push(`${method} ${index}`);
    open.set(method, (open.get(method) ?? 0) + 1);
    outgoing.once('close', () => open.set(method, open.get(method)! - 1));
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
        // At once, as the target sent them: an SSE stream's first event may be long in coming.
        outgoing.flushHeaders();
        response.pipe(outgoing);
        // A target that dies mid-response cuts the client's connection too, as a load balancer does.
        response.once('close', () => {
          if (!response.complete) outgoing.destroy();
        });
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
    open: (method) => open.get(method) ?? 0,
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
