import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { McpModule } from '../lib/index.js';
import { TypeOrmFsmStateStore, TypeOrmMcpSessionStore, TypeOrmMcpTaskStore } from '../lib/typeorm.js';
import { sampleDataSourceOptions, sampleSessionTtlMs, sampleStoreTimeoutMs, sampleTaskTimings } from './database.js';
import { sampleDrainMs } from './http-limits.js';
import { invoiceMachine } from './invoice.machine.js';
import { InvoiceTools } from './invoice.tools.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import { paymentMachine } from './payment.machine.js';
import { PaymentTools } from './payment.tools.js';
import { SampleObservabilityModule } from './observability.module.js';
import { PspWebhookController, sampleWebhookSecret } from './psp-webhook.controller.js';
import { sampleTransitionRelay } from './relay.js';
import { sampleAuthOptions, sampleConsoleOptions } from './sample-auth.js';
import { sampleTransport } from './transport.js';

/**
 * The sample: the invoice and payment workflows as MCP tools, their state and the payment
 * ledger in one database (SQLite by default, `DATABASE_URL` for PostgreSQL or MySQL/MariaDB); the
 * payment provider's webhook when `SAMPLE_WEBHOOK_SECRET` is set.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({ useFactory: () => sampleDataSourceOptions() }),
    TypeOrmModule.forFeature([LedgerEntry]),
    SampleObservabilityModule,
    McpModule.forRootAsync({
      imports: [TypeOrmModule],
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => {
        const transport = sampleTransport();
        const transitionRelay = sampleTransitionRelay(dataSource);
        return {
          name: 'nestjs-mcp-fsm-sample',
          version: '1.0.0',
          instructions:
            'Invoices: one per session, draft → review → approved → discharged. ' +
            'Payments: payment.authorize returns a paymentId; pass it to payment.capture, payment.void, ' +
            'payment.refund and payment.status. Tools appear and disappear as the workflows move.',
          machines: [invoiceMachine, paymentMachine],
          // History rows back `invoice.status`; refused and declined calls show on the console.
          store: new TypeOrmFsmStateStore(dataSource, { history: true, attempts: true, timeoutMs: sampleStoreTimeoutMs() }),
          // Several sample processes on one database tell each other's sessions about transitions.
          transitionRelay,
          // Menus from memory where this process is the only one that changes the store: the SQLite
          // file of the default setup serves one process. Processes sharing a database server read
          // their menus from it, so a session served by both sees its own change at once on either.
          stateCache: dataSource.options.type === 'better-sqlite3' && !transitionRelay,
          // Tasks (payment.refund with params.task) live in the database: any process answers them, after restarts too,
          // and carries on a task whose process stopped (its refund commits once: the task id is its idempotency key).
          tasks: { store: new TypeOrmMcpTaskStore(dataSource, { timeoutMs: sampleStoreTimeoutMs() }), ...sampleTaskTimings() },
          // Each workflow's diagram, and the caller's invoice or payment, as MCP resources.
          workflowResources: true,
          // The workflow console at /workflows (docs/console.md): open on the loopback bind, or with
          // SAMPLE_AUTH=jwt to tokens with scope workflows:read.
          console: transport === 'stdio' ? false : sampleConsoleOptions(),
          // For clients that list before every call and keep no session (the Inspector CLI).
          gate: { handleToolsMenu: process.env.MCP_HANDLE_TOOLS === 'all' ? 'all' : 'used' },
          // SAMPLE_AUTH=jwt: bearer JWTs verified against SAMPLE_JWT_JWKS_URL; scopes gate refunds and approvals.
          auth: sampleAuthOptions(),
          transports:
            transport === 'stdio'
              ? { http: false, stdio: true }
              : {
                  http: {
                    path: '/mcp',
                    // Served from Node's HTTP server ahead of Express or Fastify: the sample's MCP path
                    // needs no middleware (callers are said by `auth`), and skips the framework's cost.
                    direct: true,
                    stateless: transport === 'stateless',
                    drainMs: sampleDrainMs(),
                    // Sessions live in the database too: any sample process serves any session, across restarts.
                    sessions: { store: new TypeOrmMcpSessionStore(dataSource), idleTtlMs: sampleSessionTtlMs() },
                  },
                  stdio: false,
                },
        };
      },
    }),
  ],
  // POST /webhooks/psp only with SAMPLE_WEBHOOK_SECRET: without it the route is not served (404).
  controllers: sampleWebhookSecret() ? [PspWebhookController] : [],
  providers: [InvoiceTools, PaymentTools],
})
export class AppModule {}
