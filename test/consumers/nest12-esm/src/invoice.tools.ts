import { Injectable } from '@nestjs/common';
import { BindState, McpArgs, McpContext, McpTool, McpWorkflow, type McpToolContext } from 'nestjs-mcp-fsm';
import { z } from 'zod';
import { invoiceMachine } from './invoice.machine.js';
import { InvoiceService } from './invoice.service.js';

const dischargeInput = z.object({ reference: z.string().describe('The payment reference') });

@Injectable()
@McpWorkflow(invoiceMachine)
export class InvoiceTools {
  constructor(private readonly invoices: InvoiceService) {}

  @McpTool({ name: 'invoice.submit', description: 'Submit the draft for review' })
  @BindState('draft', 'SUBMIT')
  submit() {
    return { submitted: true };
  }

  @McpTool({ name: 'invoice.approve', description: 'Approve the invoice under review' })
  @BindState('review', 'APPROVE')
  approve() {
    return { approved: true };
  }

  @McpTool({ name: 'invoice.discharge', description: 'Discharge an approved invoice', inputSchema: dischargeInput })
  @BindState('approved', 'DISCHARGE')
  discharge(@McpArgs() input: McpArgs<typeof dischargeInput>) {
    return this.invoices.discharge(input.reference);
  }

  @McpTool({ name: 'invoice.status', description: 'Show the invoice', compactDescription: 'Invoice status' })
  status(@McpContext() ctx: McpToolContext) {
    return { state: ctx.state };
  }
}
