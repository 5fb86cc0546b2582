/**
 * Waits `SAMPLE_HANDLER_DELAY_MS` (default 0) inside a payment handler, so a demo (or a test)
 * can watch concurrent calls collide, or kill the process while a handler runs.
 */
export async function sampleHandlerDelay(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const ms = Number(env.SAMPLE_HANDLER_DELAY_MS ?? 0);
  if (ms > 0) {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
