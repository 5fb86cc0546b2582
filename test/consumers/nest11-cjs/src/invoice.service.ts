import { Injectable } from '@nestjs/common';

/** The app's own service: what a discharge does, outside the workflow. */
@Injectable()
export class InvoiceService {
  readonly discharged: string[] = [];

  discharge(reference: string): { discharged: string } {
    this.discharged.push(reference);
    return { discharged: reference };
  }
}
