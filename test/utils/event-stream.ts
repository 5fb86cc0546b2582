import { request as httpRequest, type IncomingMessage } from 'node:http';

/** One Server-Sent Event as a stream reader sees it. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/** A Server-Sent Events stream read over `node:http`: its status, its events so far, and when it ended. */
export interface EventStreamReader {
  status: number;
  headers: IncomingMessage['headers'];
  events: ServerSentEvent[];
  /** Raw text received (heartbeat comments included). */
  text: () => string;
  ended: Promise<void>;
  /** The first event (received or to come) that `match` accepts, within `timeoutMs`. */
  next: (match: (event: ServerSentEvent) => boolean, timeoutMs?: number) => Promise<ServerSentEvent>;
  close: () => void;
}

/** Opens `url` as an event stream (GET, `Accept: text/event-stream`) with `headers`. */
export function openEventStream(url: URL, headers: Record<string, string> = {}): Promise<EventStreamReader> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers: { accept: 'text/event-stream', ...headers } },
      (res) => {
        let raw = '';
        let buffer = '';
        const events: ServerSentEvent[] = [];
        const waiters = new Set<() => void>();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          raw += chunk;
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const lines = block.split('\n').filter((line) => !line.startsWith(':'));
            const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
            const data = lines
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice(6))
              .join('\n');
            if (data) events.push({ event, data });
          }
          waiters.forEach((wake) => wake());
        });
        const ended = new Promise<void>((done) => res.once('close', done));
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          events,
          text: () => raw,
          ended,
          next: (match, timeoutMs = 3000) =>
            new Promise((found, fail) => {
              const check = () => {
                const hit = events.find(match);
                if (hit) {
                  waiters.delete(check);
                  clearTimeout(timer);
                  found(hit);
                }
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`no matching event within ${timeoutMs} ms; got: ${raw}`));
              }, timeoutMs);
              waiters.add(check);
              check();
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
