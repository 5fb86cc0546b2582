import { Test } from '@nestjs/testing';
import { InvoiceService } from './invoice.service';
import { InvoiceTools } from './invoice.tools';

describe('InvoiceTools (unit: the methods, without MCP)', () => {
  let tools: InvoiceTools;
  let invoices: InvoiceService;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ providers: [InvoiceService, InvoiceTools] }).compile();
    tools = moduleRef.get(InvoiceTools);
    invoices = moduleRef.get(InvoiceService);
  });

  it('discharges through the service', () => {
    expect(tools.discharge({ reference: 'PAY-1' })).toEqual({ discharged: 'PAY-1' });
    expect(invoices.discharged).toEqual(['PAY-1']);
  });
});
