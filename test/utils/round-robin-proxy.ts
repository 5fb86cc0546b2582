import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP load balancer without stickiness: each request goes to the next target in turn (unless {@link RoundRobinProxy.setSticky}). */
export interface RoundRobinProxy {
  url: URL;
  /** Where each request went, in order (`"POST 1"`: a POST to the second target). */
  log: string[];
  /** Replaces the targets (a restarted process listens on a new port). */
  setTargets(targets: URL[]): void;
  /**
   * Session affinity on or off: on, every request of a session (`Mcp-Session-Id`) goes to one
   * target, as a load balancer configured for MCP 2025-11-25 server-to-client requests routes
   * them (the client's answer must reach the process that asked).
   */
  setSticky(sticky: boolean): void;
  close(): Promise<void>;
}

/** Starts a round-robin proxy on loopback in front of `targets` (same path on each). */
export async function startRoundRobinProxy(targets: URL[]): Promise<RoundRobinProxy> {
  let current = targets;
  let next = 0;
  let sticky = false;
  const log: string[] = [];
  const affinity = (sessionId: string) => [...sessionId].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7) % current.length;
  const server: Server = createServer((incoming: IncomingMessage, outgoing) => {
    const sessionId = incoming.headers['mcp-session-id'];
    const index = sticky && typeof sessionId === 'string' ? affinity(sessionId) : next++ % current.length;
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
    setSticky: (on) => {
      sticky = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
