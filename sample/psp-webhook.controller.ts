import {
  BadRequestException,
  ConflictException,
  Controller,
  Headers,
  HttpCode,
  HttpException,
  Logger,
  NotFoundException,
  Post,
  Req,
  Res,
  ServiceUnavailableException,
  UnauthorizedException,
  type RawBodyRequest,
} from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { WorkflowRefusal } from '../lib/extend.js';
import { PaymentTools } from './payment.tools.js';

/** The secret the payment provider signs its webhooks with: `SAMPLE_WEBHOOK_SECRET`; unset, `POST /webhooks/psp` is not served. */
export const sampleWebhookSecret = (env: NodeJS.ProcessEnv = process.env): string | undefined => env.SAMPLE_WEBHOOK_SECRET || undefined;

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
/** Seconds the provider waits before it sends an event again that could not be applied now. */
const RETRY_AFTER_SECONDS = 1;

/** The reply headers the controller sets (Express's response and Fastify's reply both have `header`). */
interface WebhookReply {
  header(name: string, value: string): unknown;
}

const webhookBody = z.object({
  id: z.string().min(1).max(255).describe("The provider's event id: the event is applied once per id"),
  type: z.enum(['authorization.revoked']),
  paymentId: z.string().min(1).max(64),
});

/**
 * `POST /webhooks/psp`: the payment provider's events, signed with `SAMPLE_WEBHOOK_SECRET`
 * (`X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body>`). `authorization.revoked`
 * voids an authorized payment through `McpWorkflowService.send` (`PaymentTools.revoke`), with its
 * `void` ledger entry in the same transaction, once per event `id`: 200 `{ applied: true, state }`,
 * the same id again 200 `{ applied: false }`; 409 when the payment is not `authorized` (the
 * answer names its state), 404 for an unknown payment, 401 for a missing or wrong signature, 400
 * for a body that is not such an event; 503 with `Retry-After` when it could not be applied now
 * (the database is unreachable, the payment is busy): nothing changed, and the same event may be
 * sent again (it is applied once per `id`). Never a 500.
 */
@Controller('webhooks')
export class PspWebhookController {
  private readonly logger = new Logger('PspWebhook');

  constructor(private readonly payments: PaymentTools) {}

  @Post('psp')
  @HttpCode(200)
  async receive(
    @Req() request: RawBodyRequest<{ body?: unknown }>,
    @Res({ passthrough: true }) reply: WebhookReply,
    @Headers('x-webhook-signature') signature?: string,
  ) {
    const raw = request.rawBody;
    if (!raw) throw new BadRequestException('The body must be JSON (Content-Type: application/json).');
    this.verify(raw, signature);
    const parsed = webhookBody.safeParse(request.body);
    if (!parsed.success) {
      throw new BadRequestException(
        `Not a payment provider event: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')}.`,
      );
    }
    const { id, paymentId } = parsed.data;
    try {
      const { applied, state } = await this.payments.revoke(paymentId, id);
      return applied ? { applied, state } : { applied };
    } catch (error) {
      const answer = this.httpError(error, paymentId);
      if (answer.getStatus() === 503) reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      throw answer;
    }
  }

  /** Throws 401 unless `signature` is the HMAC-SHA256 of the raw body with the secret (compared in constant time). */
  private verify(raw: Buffer, signature: string | undefined): void {
    if (!signature) throw new UnauthorizedException('X-Webhook-Signature is missing.');
    const given = SIGNATURE.exec(signature.trim())?.[1];
    if (!given) throw new UnauthorizedException('X-Webhook-Signature must be sha256=<hex HMAC-SHA256 of the body>.');
    const expected = createHmac('sha256', sampleWebhookSecret() ?? '')
      .update(raw)
      .digest();
    if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) {
      throw new UnauthorizedException('X-Webhook-Signature does not match the body.');
    }
  }

  /**
   * The HTTP answer to a revocation that did not apply: the refusal's, the effect's own
   * `HttpException`, or 503 for anything else (a database that went away under the effect rolled
   * it back: nothing changed; the detail goes to the log, never to the provider).
   */
  private httpError(error: unknown, paymentId: string): HttpException {
    if (error instanceof HttpException) return error;
    if (!(error instanceof WorkflowRefusal)) {
      this.logger.error(`Revocation of payment "${paymentId}" failed: ${error instanceof Error ? error.message : String(error)}`);
      return new ServiceUnavailableException(`Payment "${paymentId}" could not be changed now; send the event again.`);
    }
    const { code, state } = error.data;
    switch (code) {
      case 'UNKNOWN_HANDLE':
        return new NotFoundException(`Payment "${paymentId}" is unknown.`);
      case 'FORBIDDEN':
      case 'GUARD_REJECTED':
        return new ConflictException({
          statusCode: 409,
          error: 'Conflict',
          message: `Payment "${paymentId}" is ${JSON.stringify(state)}, not "authorized": its authorization cannot be revoked.`,
          state,
        });
      default:
        return new ServiceUnavailableException(`Payment "${paymentId}" could not be changed now (${code}); send the event again.`);
    }
  }
}
