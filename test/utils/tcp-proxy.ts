import { createServer, connect, type Server, type Socket } from 'node:net';

/** One proxied connection: the socket of the client and, once it is forwarded, the one to the server. */
interface Link {
  client: Socket;
  upstream?: Socket;
}

/**
 * A loopback TCP proxy in front of a database server, so a test can make the database
 * "go away" (close the proxy and cut its connections) and "come back" (listen again), or cut
 * the network without a reset (`partition`, then `heal`).
 */
export class TcpProxy {
  private server?: Server;
  private readonly links = new Set<Link>();
  private partitioned = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const link: Link = { client };
      this.links.add(link);
      this.watch(link, client);
      if (this.partitioned) client.pause();
      else this.open(link);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** The database is gone: refuse new connections and cut the open ones. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const link of this.links) this.cut(link);
    await closed;
  }

  /**
   * A network partition: nothing is forwarded any more, in either direction, and nothing is
   * closed or reset; new connections are accepted and held. Each side sees silence, as when
   * packets are dropped.
   */
  partition(): void {
    this.partitioned = true;
    for (const { client, upstream } of this.links) {
      client.unpipe();
      upstream?.unpipe();
      client.pause();
      upstream?.pause();
    }
  }

  /** Ends the partition (if any): what was held back is delivered, and a side closed meanwhile closes the other. */
  heal(): void {
    if (!this.partitioned) return;
    this.partitioned = false;
    for (const link of this.links) {
      if (link.client.destroyed || link.upstream?.destroyed) this.cut(link);
      else if (link.upstream) this.forward(link);
      else this.open(link);
    }
  }

  /** The URL of `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  private open(link: Link): void {
    link.upstream = connect(this.targetPort, this.targetHost);
    this.watch(link, link.upstream);
    this.forward(link);
  }

  private forward({ client, upstream }: Link): void {
    client.pipe(upstream!);
    upstream!.pipe(client);
  }

  /** A side that closes closes the other, unless the network is partitioned (then `heal` does). */
  private watch(link: Link, socket: Socket): void {
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      if (!this.partitioned) this.cut(link);
    });
  }

  private cut(link: Link): void {
    this.links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  }
}

/** Starts a {@link TcpProxy} in front of the server of `url` (`defaultPort` when the URL names none). */
export async function startProxy(url: string, defaultPort?: number): Promise<TcpProxy> {
  const server = new URL(url);
  const proxy = new TcpProxy(server.hostname, Number(server.port || defaultPort));
  await proxy.start();
  return proxy;
}
