// Shared by the intake benchmark and its server child: the webhook secret both sides sign with.
export const BENCH_SECRET = 'arbiter-bench-secret';
