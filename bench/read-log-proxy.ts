// A logging HTTP proxy between the app and the GitHub emulator (bench only): names each request
// the app makes by method and route shape (numbers and shas replaced; GraphQL by operation
// name), so the requests bench can say which reads grow with the group.
import http from 'node:http';
import { z } from 'zod';

const GraphqlBody = z.object({ operationName: z.string().optional(), query: z.string().optional() });

/** `/api/v3/repos/o/r/pulls/12/files?page=2` → `/repos/{owner}/{repo}/pulls/{n}/files`. */
export function routeShape(method: string, url: string, body: string): string {
  const path = (url.split('?')[0] ?? '').replace(/^\/api\/v3(?=\/|$)/, '');
  if (path === '/graphql' || path === '/api/graphql') {
    let op = 'anonymous';
    try {
      const parsed = GraphqlBody.safeParse(JSON.parse(body));
      if (parsed.success)
        op =
          parsed.data.operationName ?? /(?:query|mutation)\s+(\w+)/.exec(parsed.data.query ?? '')?.[1] ?? 'anonymous';
    } catch {
      // not JSON: counted as anonymous
    }
    return `${method} /graphql ${op}`;
  }
  const shaped = path
    .replace(/^\/repos\/[^/]+\/[^/]+/, '/repos/{owner}/{repo}')
    .replace(/\/[0-9a-f]{40}(?=\/|$)/g, '/{sha}')
    .replace(/\/\d+(?=\/|$)/g, '/{n}')
    .replace(/(\/(?:contents|git\/ref|git\/refs|compare|branches)\/).*$/, '$1…');
  return `${method} ${shaped}`;
}

export class ReadLogProxy {
  private server: http.Server | null = null;
  target: string | null = null;
  /** Requests by route shape since the last `take()`. */
  private counts = new Map<string, number>();
  port = 0;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const key = routeShape(req.method ?? 'GET', req.url ?? '/', body.toString('utf8'));
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
        if (!this.target) {
          res.writeHead(502).end();
          return;
        }
        const up = http.request(
          `${this.target}${req.url ?? '/'}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        up.once('error', () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
        up.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
  }

  /** The counts so far, and a fresh count from now on. */
  take(): Record<string, number> {
    const out = Object.fromEntries([...this.counts.entries()].sort((a, b) => b[1] - a[1]));
    this.counts = new Map();
    return out;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
