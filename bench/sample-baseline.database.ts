import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';

/** States of an invoice, as in the sample's invoice machine. */
export type InvoiceState = 'draft' | 'review' | 'approved' | 'discharged';

/** One transition of an invoice, as `invoice.status` shows it. */
export interface InvoiceHistoryRow {
  from: InvoiceState | null;
  to: InvoiceState;
  event: string | null;
  tool: string;
  at: string;
}

/** States of a payment, as in the sample's payment machine. */
export type PaymentState = 'authorized' | 'captured' | 'partially_refunded' | 'refunded' | 'voided';

/** Kinds of ledger entries, as in the sample. */
export type LedgerKind = 'authorize' | 'capture' | 'void' | 'refund';

/** A payment as stored, amounts in cents. */
export interface PaymentRow {
  id: string;
  sessionId: string;
  state: PaymentState;
  currency: string;
  authorizedCents: number;
  capturedCents: number;
  refundedCents: number;
}

/** One ledger entry as stored, amount in cents. */
export interface LedgerRow {
  kind: LedgerKind;
  amountCents: number;
}

/** What a transition did: the payment after it and its ledger entry, or why it was refused. */
export type TransitionOutcome =
  | { ok: true; payment: PaymentRow; entry: LedgerRow }
  | { ok: false; refusal: 'unknown payment' | 'wrong state' | 'refund exceeds what is left'; state?: PaymentState };

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS payment (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    currency TEXT NOT NULL,
    authorized_cents INTEGER NOT NULL,
    captured_cents INTEGER NOT NULL DEFAULT 0,
    refunded_cents INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS ledger (
    id INTEGER PRIMARY KEY,
    payment_id TEXT NOT NULL REFERENCES payment (id),
    kind TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    currency TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ledger_payment_id ON ledger (payment_id);
  CREATE TABLE IF NOT EXISTS invoice (
    session_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS invoice_history (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    from_state TEXT,
    to_state TEXT NOT NULL,
    event TEXT,
    tool TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS invoice_history_session_id ON invoice_history (session_id);
`;

const PAYMENT_COLUMNS = `id, session_id AS sessionId, state, currency, authorized_cents AS authorizedCents,
  captured_cents AS capturedCents, refunded_cents AS refundedCents`;

/**
 * The hand-written sample's payments, ledger and invoices in one better-sqlite3 file, as a
 * competent SDK user writes it: WAL with `synchronous = NORMAL` (the sample's settings),
 * statements prepared once, one transaction per transition in which a conditional `UPDATE` is
 * the gate (the payment must be the session's, the instance in the state the tool needs), and
 * every read from the file. A session's invoice is in `draft` until its first transition.
 */
export class SampleBaselineDatabase {
  private readonly db: Database.Database;
  private readonly statements;

  /** Starts an authorized payment of the session and writes its `authorize` entry, in one transaction. */
  readonly authorize: (sessionId: string, amountCents: number, currency: string) => PaymentRow;
  /** Moves the session's authorized payment to `captured` (the full amount) or `voided`, with its ledger entry, in one transaction. */
  readonly settle: (sessionId: string, id: string, to: 'captured' | 'voided') => TransitionOutcome;
  /** Refunds `amountCents` (default: what is left) of the session's captured payment, with its ledger entry, in one transaction. */
  readonly refund: (sessionId: string, id: string, amountCents?: number) => TransitionOutcome;
  /** Moves the session's invoice from `from` to `to` and records it, in one transaction; the state it was in when it was not in `from`. */
  readonly fireInvoice: (
    sessionId: string,
    from: InvoiceState,
    to: InvoiceState,
    event: string,
    tool: string,
  ) => { ok: true } | { ok: false; state: InvoiceState };

  constructor(private readonly file: string) {
    removeDatabase(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    const statements = (this.statements = {
      insertPayment: this.db.prepare(
        `INSERT INTO payment (id, session_id, state, currency, authorized_cents, created_at, updated_at)
         VALUES (?, ?, 'authorized', ?, ?, ?, ?)`,
      ),
      insertEntry: this.db.prepare(`INSERT INTO ledger (payment_id, kind, amount_cents, currency, created_at) VALUES (?, ?, ?, ?, ?)`),
      payment: this.db.prepare<[string, string], PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM payment WHERE id = ? AND session_id = ?`),
      capture: this.db.prepare<[number, string, string], PaymentRow>(
        `UPDATE payment SET state = 'captured', captured_cents = authorized_cents, updated_at = ?
         WHERE id = ? AND session_id = ? AND state = 'authorized' RETURNING ${PAYMENT_COLUMNS}`,
      ),
      void: this.db.prepare<[number, string, string], PaymentRow>(
        `UPDATE payment SET state = 'voided', updated_at = ?
         WHERE id = ? AND session_id = ? AND state = 'authorized' RETURNING ${PAYMENT_COLUMNS}`,
      ),
      refund: this.db.prepare<[string, number, number, string], PaymentRow>(
        `UPDATE payment SET state = ?, refunded_cents = refunded_cents + ?, updated_at = ? WHERE id = ? RETURNING ${PAYMENT_COLUMNS}`,
      ),
      ledger: this.db.prepare<[string], LedgerRow>(`SELECT kind, amount_cents AS amountCents FROM ledger WHERE payment_id = ? ORDER BY id`),
      openInvoice: this.db.prepare(`INSERT OR IGNORE INTO invoice (session_id, state, updated_at) VALUES (?, 'draft', ?)`),
      moveInvoice: this.db.prepare(`UPDATE invoice SET state = ?, updated_at = ? WHERE session_id = ? AND state = ?`),
      invoice: this.db.prepare<[string], { state: InvoiceState }>(`SELECT state FROM invoice WHERE session_id = ?`),
      recordInvoice: this.db.prepare(
        `INSERT INTO invoice_history (session_id, from_state, to_state, event, tool, at) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      invoiceHistory: this.db.prepare<[string], Omit<InvoiceHistoryRow, 'at'> & { at: number }>(
        `SELECT from_state AS "from", to_state AS "to", event, tool, at FROM invoice_history WHERE session_id = ? ORDER BY id`,
      ),
    });
    const refusal = (payment: PaymentRow | undefined): TransitionOutcome =>
      payment ? { ok: false, refusal: 'wrong state', state: payment.state } : { ok: false, refusal: 'unknown payment' };

    this.authorize = this.db.transaction((sessionId: string, amountCents: number, currency: string): PaymentRow => {
      const id = randomBytes(16).toString('base64url');
      const now = Date.now();
      statements.insertPayment.run(id, sessionId, currency, amountCents, now, now);
      statements.insertEntry.run(id, 'authorize', amountCents, currency, now);
      return { id, sessionId, state: 'authorized', currency, authorizedCents: amountCents, capturedCents: 0, refundedCents: 0 };
    });

    this.settle = this.db.transaction((sessionId: string, id: string, to: 'captured' | 'voided'): TransitionOutcome => {
      const now = Date.now();
      const payment = (to === 'captured' ? statements.capture : statements.void).get(now, id, sessionId);
      if (!payment) return refusal(statements.payment.get(id, sessionId));
      const entry: LedgerRow = { kind: to === 'captured' ? 'capture' : 'void', amountCents: payment.authorizedCents };
      statements.insertEntry.run(id, entry.kind, entry.amountCents, payment.currency, now);
      return { ok: true, payment, entry };
    });

    this.refund = this.db.transaction((sessionId: string, id: string, amountCents?: number): TransitionOutcome => {
      const current = statements.payment.get(id, sessionId);
      if (!current || (current.state !== 'captured' && current.state !== 'partially_refunded')) return refusal(current);
      const left = current.capturedCents - current.refundedCents;
      const cents = amountCents ?? left;
      if (cents <= 0 || cents > left) return { ok: false, refusal: 'refund exceeds what is left', state: current.state };
      const now = Date.now();
      const payment = statements.refund.get(cents === left ? 'refunded' : 'partially_refunded', cents, now, id)!;
      const entry: LedgerRow = { kind: 'refund', amountCents: cents };
      statements.insertEntry.run(id, entry.kind, cents, payment.currency, now);
      return { ok: true, payment, entry };
    });

    this.fireInvoice = this.db.transaction((sessionId: string, from: InvoiceState, to: InvoiceState, event: string, tool: string) => {
      const now = Date.now();
      statements.openInvoice.run(sessionId, now);
      if (statements.moveInvoice.run(to, now, sessionId, from).changes === 0) {
        return { ok: false as const, state: statements.invoice.get(sessionId)!.state };
      }
      statements.recordInvoice.run(sessionId, from, to, event, tool, now);
      return { ok: true as const };
    });
  }

  /** The session's invoice and its transitions, read from the file. */
  invoiceStatus(sessionId: string): { state: InvoiceState; history: InvoiceHistoryRow[] } {
    const state = this.statements.invoice.get(sessionId)?.state ?? 'draft';
    const history = this.statements.invoiceHistory.all(sessionId).map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
    return { state, history };
  }

  /** The session's payment and its ledger, read from the file; `undefined` when it is not the session's. */
  status(sessionId: string, id: string): { payment: PaymentRow; ledger: LedgerRow[] } | undefined {
    const payment = this.statements.payment.get(id, sessionId);
    return payment && { payment, ledger: this.statements.ledger.all(id) };
  }

  /** Closes the file and removes it. */
  close(): void {
    this.db.close();
    removeDatabase(this.file);
  }
}

function removeDatabase(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
}
