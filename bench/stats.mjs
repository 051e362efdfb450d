export const round = (x, digits = 3) => Number(x.toFixed(digits));

export function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const median = (xs) => quantile(xs, 0.5);

/** Per-call latencies of `fn`, in milliseconds. */
export async function time(fn, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}
