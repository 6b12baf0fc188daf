/** Seconds since a `performance.now()` reading: OpenTelemetry's unit for durations. */
export function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}
