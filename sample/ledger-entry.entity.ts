import { Column, Entity, Index, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';

/** Kinds of ledger entries, one per payment tool. */
export type LedgerKind = 'authorize' | 'capture' | 'void' | 'refund';

/** PostgreSQL and MySQL return DECIMAL and BIGINT as strings; the sample works in numbers. */
const numeric: ValueTransformer = {
  to: (value: number) => value,
  from: (value: string | number | null) => (value === null ? value : Number(value)),
};

/**
 * One business effect of a payment tool, written in the same transaction as the workflow
 * transition that the call fires (the payment tools are transactional).
 */
@Entity('sample_ledger')
@Index('IDX_sample_ledger_payment_id', ['paymentId'])
export class LedgerEntry {
  @PrimaryGeneratedColumn('increment')
  id!: number;

  @Column({ name: 'payment_id', type: 'varchar', length: 64 })
  paymentId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: LedgerKind;

  @Column({ type: 'decimal', precision: 14, scale: 2, transformer: numeric })
  amount!: number;

  @Column({ type: 'varchar', length: 3 })
  currency!: string;

  /** Epoch milliseconds. */
  @Column({ name: 'created_at', type: 'bigint', transformer: numeric })
  createdAt!: number;
}
