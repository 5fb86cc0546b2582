import { HttpException, HttpStatus } from '@nestjs/common';
import * as messages from './results.messages.js';

/**
 * A request to the client that was not sent: its session already waits for
 * `sessions.maxPendingRequests` answers. A handler that asked it gets this error (its call
 * answers a tool error with the message); the confirmation step refuses CONFIRMATION_REQUIRED.
 */
export class McpPendingRequestsError extends HttpException {
  constructor(readonly limit: number) {
    super(messages.pendingRequestsLimit(limit), HttpStatus.TOO_MANY_REQUESTS);
    this.name = 'McpPendingRequestsError';
  }
}
