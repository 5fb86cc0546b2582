/** One indicator in terminus's JSON body: its status and what it reported. */
export type IndicatorReport = { status: 'up' | 'degraded' | 'down' } & Record<string, unknown>;

/** Terminus's JSON body of `GET /health`. */
export interface HealthBody {
  status: 'ok' | 'degraded' | 'error';
  info?: Record<string, IndicatorReport>;
  error?: Record<string, IndicatorReport>;
  details: Record<string, IndicatorReport>;
}

/** `GET url`: the HTTP status, terminus's body, and how long the answer took. */
export async function getHealth(url: URL): Promise<{ status: number; body: HealthBody; ms: number }> {
  const started = Date.now();
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as HealthBody, ms: Date.now() - started };
}
