import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { McpNodeRequest } from './mcp-body.reader.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts a listener in front of the app's own request listeners on the Node server: requests
 * whose URL `ours` accepts go to `handle`, which may pass them on to the app; the others go to
 * the app at once. What serves a path straight from Node, ahead of the framework.
 */
export function interceptRequests(
  server: HttpServer,
  ours: (url: string) => boolean,
  handle: (req: McpNodeRequest, res: ServerResponse, passOn: () => void) => void,
): void {
  const app = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: McpNodeRequest, res: ServerResponse) => {
    const passOn = () => {
      for (const listener of app) listener.call(server, req, res);
    };
    if (ours(req.url ?? '')) {
      handle(req, res, passOn);
    } else {
      passOn();
    }
  });
}
