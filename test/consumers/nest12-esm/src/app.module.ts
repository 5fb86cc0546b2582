import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { McpModule } from 'nestjs-mcp-fsm';
import {
  AddMcpFsmApprovals1766102400000,
  AddMcpFsmContext1764547200000,
  AddMcpFsmTeam1766016000000,
  CreateMcpFsmState1764460800000,
  TypeOrmFsmStateStore,
} from 'nestjs-mcp-fsm/typeorm';
import { DataSource } from 'typeorm';
import { invoiceMachine } from './invoice.machine.js';
import { InvoiceService } from './invoice.service.js';
import { InvoiceTools } from './invoice.tools.js';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({
        type: 'better-sqlite3',
        database: process.env.DB_FILE ?? 'app.sqlite',
        migrations: [
          CreateMcpFsmState1764460800000,
          AddMcpFsmContext1764547200000,
          AddMcpFsmTeam1766016000000,
          AddMcpFsmApprovals1766102400000,
        ],
        migrationsRun: true,
      }),
    }),
    McpModule.forRootAsync({
      imports: [TypeOrmModule],
      inject: [DataSource],
      useFactory: (dataSource: DataSource) => ({
        name: 'billing',
        version: '1.0.0',
        machines: [invoiceMachine],
        store: new TypeOrmFsmStateStore(dataSource),
        transports: { http: { path: '/mcp' } },
      }),
    }),
  ],
  providers: [InvoiceService, InvoiceTools],
})
export class AppModule {}
