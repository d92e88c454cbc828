// The emulator's HTTP front: REST under `/` and `/api/v3`, GraphQL under `/graphql` and
// `/api/graphql`; authenticates, checks each request and each answer against the contract,
// injects faults, runs the route and records every write and read made by the app.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppAuth } from './auth.ts';
import type { Operation, RestContract } from './contract.ts';
import { mutationNames, operationTitle, runGraphql } from './graphql/endpoint.ts';
import type { Sent } from './issue-acts.ts';
import type { RouteTable } from './rest/route-kit.ts';
import { GitHubError, type World } from './world.ts';

export interface WriteRecord {
  seq: number;
  at: number;
  method: string;
  route: string;
  path: string;
  operation: string | null;
  status: number;
  summary: string;
}

export interface Fault {
  route: string;
  /** Only requests to this path (`/repos/acme/ui/pulls/9/merge`); absent: any path of the route. */
  path?: string;
  status: number;
  times?: number;
  when?: 'before' | 'after';
  headers?: Record<string, string>;
  body?: unknown;
}

/** A REST answer in the making: the request as written and the operation it names. */
interface RestAnswer {
  label: string;
  operation: Operation;
}

/** Routes a GitHub App calls with its JWT rather than an installation token. */
const JWT_ROUTES = new Set([
  'GET /app',
  'GET /app/installations',
  'GET /repos/{owner}/{repo}/installation',
  'POST /app/installations/{installation_id}/access_tokens',
  'GET /app/hook/deliveries',
  'POST /app/hook/deliveries/{delivery_id}/attempts',
]);

export interface Recorder {
  writes: WriteRecord[];
  reads: number;
  /** GraphQL reads by operation (`query ArbiterGroup`), for the bench's account of where reads go. */
  graphqlReads: Record<string, number>;
  faults: (Fault & { remaining: number })[];
  listeners: ((w: WriteRecord) => void)[];
  scenarioStart: number;
  /** A secondary rate limit in force: every write is refused until `until` (emulator clock, ms). */
  block?: { until: number; fault: Fault };
}

/** A fault that is a rate limit (403 or 429 with retry-after): it blocks every write for that long. */
export function rateLimitSeconds(fault: Fault): number | null {
  if (fault.status !== 403 && fault.status !== 429) return null;
  const value = Object.entries(fault.headers ?? {}).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  const seconds = value === undefined ? NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

const SECONDARY_LIMIT = 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';

const DOCS = 'https://docs.github.com/rest';

function errorBody(status: number, message: string, errors?: unknown[]): Record<string, unknown> {
  return { message, documentation_url: DOCS, status: String(status), ...(errors ? { errors } : {}) };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  text?: string,
): void {
  const payload = text ?? (body === undefined ? '' : JSON.stringify(body));
  res.writeHead(status, {
    'content-type': text !== undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    'x-github-media-type': 'github.v3; format=json',
    ...headers,
  });
  res.end(payload);
}

/** GitHub's primary rate limit an hour, per caller and resource (REST `core`, `graphql`). */
export const EMULATED_RATE_LIMIT = 5000;

/**
 * The emulator's rate-limit windows: an hour from a caller's first request on a resource, on the
 * emulator's clock; each request spends one (GraphQL: one point a query). The headers GitHub sends.
 */
export class RateLimitWindows {
  private readonly windows = new Map<string, { resetMs: number; used: number }>();

  spend(who: string, resource: 'core' | 'graphql', nowMs: number): Record<string, string> {
    const key = `${who} ${resource}`;
    let w = this.windows.get(key);
    if (!w || nowMs >= w.resetMs) {
      w = { resetMs: nowMs + 3_600_000, used: 0 };
      this.windows.set(key, w);
    }
    w.used = Math.min(w.used + 1, EMULATED_RATE_LIMIT);
    return {
      'x-ratelimit-limit': String(EMULATED_RATE_LIMIT),
      'x-ratelimit-remaining': String(EMULATED_RATE_LIMIT - w.used),
      'x-ratelimit-used': String(w.used),
      'x-ratelimit-reset': String(Math.ceil(w.resetMs / 1000)),
      'x-ratelimit-resource': resource,
    };
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

export class EmulatorServer {
  private server: Server | null = null;
  private readonly rateLimits = new RateLimitWindows();

  constructor(
    private readonly world: World,
    private readonly auth: AppAuth,
    private readonly contract: RestContract,
    private readonly routes: RouteTable,
    private readonly recorder: Recorder,
  ) {}

  listen(): Promise<number> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.world.violations.push(
          `emulator crashed on ${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`,
        );
        if (!res.headersSent) send(res, 500, errorBody(500, 'Server Error'));
      });
    });
    server.keepAliveTimeout = 1000;
    this.server = server;
    return new Promise((resolve) => {
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  private record(
    method: string,
    route: string,
    path: string,
    operation: string | null,
    status: number,
    summary: string,
  ): void {
    const write: WriteRecord = {
      seq: this.recorder.writes.length + 1,
      at: (this.world.now() - this.recorder.scenarioStart) / 1000,
      method,
      route,
      path,
      operation,
      status,
      summary,
    };
    this.recorder.writes.push(write);
    for (const listener of this.recorder.listeners) listener(write);
  }

  private takeFault(key: string, path?: string): (Fault & { remaining: number }) | null {
    const fault = this.recorder.faults.find(
      (f) => f.remaining > 0 && f.route === key && (f.path === undefined || f.path === path),
    );
    if (!fault) return null;
    fault.remaining -= 1;
    return fault;
  }

  private sendFault(res: ServerResponse, fault: Fault, rest: RestAnswer | null): void {
    const body =
      fault.body ?? errorBody(fault.status, fault.status >= 500 ? 'Server Error' : 'Fault injected by the emulator');
    if (rest) this.answer(res, rest, fault.status, body, fault.headers ?? {});
    else send(res, fault.status, body, fault.headers ?? {});
  }

  /** Sends a REST answer once it is checked against GitHub's schema for the operation and status. */
  private answer(
    res: ServerResponse,
    rest: RestAnswer,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    text?: string,
  ): void {
    const problems = text === undefined ? this.contract.checkResponse(rest.operation, status, body) : [];
    if (problems.length > 0)
      this.world.violations.push(
        `${rest.label} (${rest.operation.operationId}): the emulator's ${status} answer breaks GitHub's response schema: ${problems.join('; ')}`,
      );
    send(res, status, body, headers, text);
  }

  /**
   * A write while a rate limit is in force, or one that meets a rate-limit fault (which starts
   * one): refused with the seconds left, as GitHub does, instead of a fixed number of times.
   */
  private rateLimited(
    takeFault: () => (Fault & { remaining: number }) | null,
  ): { fault: Fault; retryAfter: number } | null {
    const now = this.world.now();
    const block = this.recorder.block;
    if (block && now < block.until) return { fault: block.fault, retryAfter: Math.ceil((block.until - now) / 1000) };
    const fault = takeFault();
    if (!fault) return null;
    const seconds = rateLimitSeconds(fault);
    if (seconds === null) {
      fault.remaining += 1; // not a rate limit: left for the usual path
      return null;
    }
    this.recorder.block = { until: now + seconds * 1000, fault };
    return { fault, retryAfter: seconds };
  }

  private sendRateLimit(
    res: ServerResponse,
    limited: { fault: Fault; retryAfter: number },
    rest: RestAnswer | null,
  ): void {
    const headers: Record<string, string> = Object.fromEntries(
      Object.entries(limited.fault.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'retry-after'),
    );
    headers['retry-after'] = String(limited.retryAfter);
    const body = limited.fault.body ?? errorBody(limited.fault.status, SECONDARY_LIMIT);
    if (rest) this.answer(res, rest, limited.fault.status, body, headers);
    else send(res, limited.fault.status, body, headers);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname.replace(/^\/api\/v3(?=\/|$)/, '') || '/';
    const raw = await readBody(req);
    const credential = this.auth.identify(req.headers.authorization);
    // Every answer carries the caller's rate limit, as GitHub's do (a fault's own headers win).
    const graphql = path === '/graphql' || path === '/api/graphql';
    const who = credential.kind === 'installation' ? `installation ${credential.installationId}` : credential.kind;
    for (const [name, value] of Object.entries(
      this.rateLimits.spend(who, graphql ? 'graphql' : 'core', this.world.now()),
    ))
      res.setHeader(name, value);
    // GitHub's Date is its own clock, which x-ratelimit-reset counts on: here the emulator's.
    res.setHeader('date', new Date(this.world.now()).toUTCString());
    if (graphql) return this.handleGraphql(method, raw, credential.kind, res, path);

    const matched = this.contract.match(method, path);
    const label = `${method} ${path}`;
    if (!matched) {
      this.world.violations.push(`${label}: not an operation in the emulator's OpenAPI subset`);
      return send(res, 404, errorBody(404, 'Not Found'));
    }
    const routeKey = `${method} ${matched.operation.route}`;
    const rest: RestAnswer = { label, operation: matched.operation };
    const needsJwt = JWT_ROUTES.has(routeKey);
    if (needsJwt ? credential.kind !== 'jwt' : credential.kind !== 'installation') {
      const message =
        credential.kind === 'none'
          ? credential.reason
          : needsJwt
            ? 'A JSON web token could not be decoded'
            : 'Bad credentials';
      return this.answer(res, rest, 401, errorBody(401, message));
    }
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        this.world.violations.push(`${label}: the body is not JSON`);
        return this.answer(res, rest, 400, errorBody(400, 'Problems parsing JSON'));
      }
    }
    const problems = this.contract.check(matched, body, url.searchParams);
    const counted = !needsJwt;
    const isWrite = method !== 'GET' && method !== 'HEAD';
    if (problems.length > 0) {
      this.world.violations.push(
        `${label} (${matched.operation.route}) breaks GitHub's OpenAPI contract: ${problems.join('; ')}`,
      );
      if (counted && isWrite) this.record(method, matched.operation.route, path, null, 422, `refused: ${problems[0]}`);
      return this.answer(res, rest, 422, errorBody(422, `Invalid request.\n\n${problems.join('\n')}`));
    }
    const handler = this.routes[routeKey];
    if (!handler) return this.answer(res, rest, 404, errorBody(404, 'Not Found'));
    if (counted && !isWrite) this.recorder.reads += 1;
    const limited = counted && isWrite ? this.rateLimited(() => this.takeFault(routeKey, path)) : null;
    if (limited) {
      this.record(
        method,
        matched.operation.route,
        path,
        null,
        limited.fault.status,
        `rate limited ${limited.fault.status} before ${routeKey} (retry-after ${limited.retryAfter}; not applied)`,
      );
      return this.sendRateLimit(res, limited, rest);
    }
    const fault = counted ? this.takeFault(routeKey, path) : null;
    if (fault && (fault.when ?? 'before') === 'before') {
      if (isWrite)
        this.record(
          method,
          matched.operation.route,
          path,
          null,
          fault.status,
          `fault ${fault.status} before ${routeKey} (not applied)`,
        );
      return this.sendFault(res, fault, rest);
    }
    const out: Sent = [];
    const actor = this.world.appBot();
    let result;
    try {
      result = handler({
        world: this.world,
        method,
        path,
        params: matched.params,
        query: url.searchParams,
        body,
        headers: req.headers,
        actor,
        app: this.world.appSlug,
        out,
      });
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      if (counted && isWrite)
        this.record(
          method,
          matched.operation.route,
          path,
          null,
          error.status,
          `${routeKey} refused ${error.status}: ${error.message.split('\n')[0]}`,
        );
      return this.answer(res, rest, error.status, errorBody(error.status, error.message, error.errors));
    }
    if (counted && isWrite) {
      const summary = result.summary ?? routeKey;
      this.record(
        method,
        matched.operation.route,
        path,
        null,
        fault ? fault.status : result.status,
        fault ? `${summary} (applied; fault ${fault.status} after)` : summary,
      );
    }
    if (fault) return this.sendFault(res, fault, rest);
    this.answer(res, rest, result.status, result.json, result.headers ?? {}, result.text);
  }

  private handleGraphql(method: string, raw: string, credential: string, res: ServerResponse, path: string): void {
    if (method !== 'POST') return send(res, 404, errorBody(404, 'Not Found'));
    if (credential !== 'installation')
      return send(res, 401, {
        message: 'This endpoint requires you to be authenticated.',
        documentation_url:
          'https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql',
      });
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      this.world.violations.push(`POST ${path}: the body is not JSON`);
      return send(res, 400, { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/graphql' });
    }
    const query =
      typeof body === 'object' && body !== null && 'query' in body && typeof body.query === 'string' ? body.query : '';
    const opName =
      typeof body === 'object' && body !== null && 'operationName' in body && typeof body.operationName === 'string'
        ? body.operationName
        : null;
    const names = mutationNames(query, opName);
    if (names.length === 0) {
      this.recorder.reads += 1;
      const title = operationTitle(query, opName);
      this.recorder.graphqlReads[title] = (this.recorder.graphqlReads[title] ?? 0) + 1;
    }
    const limited =
      names.length > 0
        ? this.rateLimited(
            () => names.map((name) => this.takeFault(`POST /graphql ${name}`)).find((f) => f !== null) ?? null,
          )
        : null;
    if (limited) {
      for (const name of names)
        this.record(
          'POST',
          '/graphql',
          path,
          name,
          limited.fault.status,
          `rate limited ${limited.fault.status} before ${name} (retry-after ${limited.retryAfter}; not applied)`,
        );
      return this.sendRateLimit(res, limited, null);
    }
    const fault = names.map((name) => this.takeFault(`POST /graphql ${name}`)).find((f) => f !== null) ?? null;
    if (fault && (fault.when ?? 'before') === 'before') {
      for (const name of names)
        this.record('POST', '/graphql', path, name, fault.status, `fault ${fault.status} before ${name} (not applied)`);
      return this.sendFault(res, fault, null);
    }
    const out: Sent = [];
    const outcome = runGraphql(this.world, body, this.world.appBot(), out);
    const operation = `POST ${path}${names.length ? ` (${names.join(', ')})` : ''}`;
    if (outcome.refused !== null)
      this.world.violations.push(`${operation}: GitHub's GraphQL schema refuses the document: ${outcome.refused}`);
    if (outcome.breaches.length > 0)
      this.world.violations.push(
        `POST ${path} (${operationTitle(query, opName)}): the emulator's ${outcome.status} answer breaks GitHub's GraphQL schema: ${outcome.breaches.slice(0, 8).join('; ')}`,
      );
    const errors =
      typeof outcome.json === 'object' &&
      outcome.json !== null &&
      'errors' in outcome.json &&
      Array.isArray(outcome.json.errors)
        ? outcome.json.errors
        : [];
    names.forEach((name, i) => {
      const failed = outcome.summaries[i] === undefined;
      const firstError: unknown = errors[0];
      const reason =
        typeof firstError === 'object' && firstError !== null && 'message' in firstError
          ? String(firstError.message)
          : 'refused';
      const summary = failed ? `${name} failed: ${reason}` : outcome.summaries[i];
      this.record(
        'POST',
        '/graphql',
        path,
        name,
        fault ? fault.status : outcome.status,
        fault ? `${summary} (applied; fault ${fault.status} after)` : summary,
      );
    });
    if (fault) return this.sendFault(res, fault, null);
    send(res, outcome.status, outcome.json);
  }
}
