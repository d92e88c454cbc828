// The process environment, read once with zod: a missing or malformed variable is one clear
// message naming it. Also decides between Probot's setup flow and the real server.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const LogLevel = z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const nonEmpty = z.string().trim().min(1);

const EnvSchema = z.object({
  APP_ID: z.string().regex(/^\d+$/, 'must be the numeric GitHub App id').optional(),
  PRIVATE_KEY: nonEmpty.optional(),
  PRIVATE_KEY_PATH: nonEmpty.optional(),
  WEBHOOK_SECRET: nonEmpty.optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: nonEmpty.optional(),
  LOG_LEVEL: LogLevel.default('info'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
    .optional(),
  ARBITER_DATA_DIR: nonEmpty.optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.url().optional(),
  GHE_HOST: nonEmpty.optional(),
  GHE_PROTOCOL: z.enum(['http', 'https']).default('https'),
  WEBHOOK_PROXY_URL: z.url().optional(),
  ARBITER_APP_SLUG: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be the app slug (lower case, dashes)')
    .optional(),
  ARBITER_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
  /** pg-boss schema in PostgreSQL (replicas of one deployment share it). */
  ARBITER_QUEUE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .default('pgboss'),
  /**
   * Seconds a check event's job waits before it runs, so a burst of check events on one head
   * (CI reports each run and suite on its own) costs one read of that head (docs/OPERATIONS.md).
   */
  ARBITER_CHECK_EVENT_WAIT: z.coerce.number().min(0).max(60).default(1),
  /** `0`: no repository gets a dashboard issue, whatever its config (the scenario runner's default). */
  ARBITER_DASHBOARD: flag.default(true),
  /**
   * Agents trusted in every repository of the deployment, besides each repository's
   * `trust.agents`: comma-separated names (`copilot`) or logins (the scenario runner's default).
   */
  ARBITER_TRUST_AGENTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    ),
  /** Asks for GET /metrics; refused without ARBITER_METRICS_TOKEN (the port is public). */
  ARBITER_METRICS: flag.default(false),
  /** Serves GET /metrics (Prometheus text format) to requests with `authorization: Bearer <token>`. */
  ARBITER_METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
});

export interface Credentials {
  appId: number;
  privateKey: string;
  webhookSecret: string;
}

export type Env = Omit<z.output<typeof EnvSchema>, 'PRIVATE_KEY' | 'PRIVATE_KEY_PATH' | 'APP_ID'> & {
  /** Null: no credentials at all, so Probot's setup flow runs. */
  credentials: Credentials | null;
  /** GitHub's REST base URL for GitHub Enterprise Server (GHE_HOST), else undefined. */
  githubBaseUrl: string | undefined;
};

export class EnvError extends Error {
  override readonly name = 'EnvError';
}

const blankToUndefined = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(env).flatMap(([k, v]) => (v === undefined || v === '' ? [] : [[k, v]])));

/** Parses the environment; throws EnvError with one line per bad variable. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(blankToUndefined(source));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
    throw new EnvError(`invalid environment:\n  ${lines.join('\n  ')}`);
  }
  const { PRIVATE_KEY, PRIVATE_KEY_PATH, APP_ID, ...rest } = parsed.data;
  const privateKey = PRIVATE_KEY
    ? PRIVATE_KEY.replace(/\\n/g, '\n')
    : PRIVATE_KEY_PATH
      ? readKey(PRIVATE_KEY_PATH)
      : undefined;
  const given = { APP_ID, 'PRIVATE_KEY or PRIVATE_KEY_PATH': privateKey, WEBHOOK_SECRET: rest.WEBHOOK_SECRET };
  const missing = Object.entries(given).flatMap(([k, v]) => (v ? [] : [k]));
  if (missing.length > 0 && missing.length < 3) {
    throw new EnvError(
      `incomplete GitHub App credentials: ${missing.join(', ')} missing (set all three, or none to run the setup flow)`,
    );
  }
  if (rest.ARBITER_METRICS && rest.ARBITER_METRICS_TOKEN === undefined) {
    throw new EnvError(
      'ARBITER_METRICS=1 needs ARBITER_METRICS_TOKEN: /metrics is served on the public webhook port, only to `authorization: Bearer <token>`',
    );
  }
  if (privateKey && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) {
    throw new EnvError('PRIVATE_KEY: not a PEM private key (expected "-----BEGIN … PRIVATE KEY-----")');
  }
  const credentials =
    APP_ID && privateKey && rest.WEBHOOK_SECRET
      ? { appId: Number(APP_ID), privateKey, webhookSecret: rest.WEBHOOK_SECRET }
      : null;
  return {
    ...rest,
    credentials,
    githubBaseUrl: rest.GHE_HOST ? `${rest.GHE_PROTOCOL}://${rest.GHE_HOST}/api/v3` : undefined,
  };
}

function readKey(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new EnvError(`PRIVATE_KEY_PATH: cannot read ${file} (${err instanceof Error ? err.message : String(err)})`);
  }
}
