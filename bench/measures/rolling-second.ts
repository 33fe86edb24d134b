/** How bursty a series of request start times is, for the pacing bench and the rate limiter's tests. */

/** The most timestamps (ms) inside any window [t, t + 1000]: windows that start at a timestamp are the worst. */
export function maxInAnyRollingSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! - sorted[start]! <= 1000) end++;
    max = Math.max(max, end - start);
  }
  return max;
}
