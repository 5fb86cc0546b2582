/** One iteration of the mixed workload, in order. */
export const MIXED_OPERATIONS = ['tools/list', 'payment.authorize', 'payment.status', 'payment.capture'] as const;
export type MixedOperation = (typeof MIXED_OPERATIONS)[number];

/** What the runner asks a worker. */
export type MixedRequest =
  { cmd: 'open'; urls: Record<string, string> } | { cmd: 'round'; side: string; iterations: number } | { cmd: 'close' };

/** What a worker answers: opened, or one round's timings. */
export type MixedReply =
  | { opened: true }
  | { latenciesMs: Record<MixedOperation, number[]>; errors: number; cpuUs: number; error?: undefined }
  | { error: string };
