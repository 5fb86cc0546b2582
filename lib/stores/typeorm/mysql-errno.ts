const DUPLICATE_KEY_ERRNO = 1062;
const DEADLOCK_ERRNO = 1213;

/** Whether MySQL refused an insert for a duplicate key (`ER_DUP_ENTRY`). */
export function isDuplicateKey(error: unknown): boolean {
  return driverErrno(error) === DUPLICATE_KEY_ERRNO;
}

/**
 * Whether an INSERT that skips a conflicting row (`ON CONFLICT DO NOTHING`) or, on MySQL/MariaDB,
 * refuses it with a duplicate key, inserted its row; other errors are thrown.
 */
export async function insertedOnce(insert: () => Promise<{ affected?: number }>): Promise<boolean> {
  try {
    return (await insert()).affected === 1;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return false;
  }
}

/**
 * Whether InnoDB chose this transaction as a deadlock victim (and rolled it back). Under
 * REPEATABLE READ a locking read of an absent row takes a gap lock, so two transactions
 * inserting new instances into the same index gap can deadlock.
 */
export function isDeadlock(error: unknown): boolean {
  return driverErrno(error) === DEADLOCK_ERRNO;
}

function driverErrno(error: unknown): number | undefined {
  return (error as { driverError?: { errno?: number } }).driverError?.errno;
}
