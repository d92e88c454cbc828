// One GitHub for several installations (bench only): each installation is its own emulator, and
// the app talks to this proxy as its GitHub host. A request goes to the installation it acts for:
// by the installation id of an `/app/installations/{id}/…` path, by the installation token it
// carries (learned from the token answers that pass through here), or by the owner of a
// `/repos/{owner}/…` path. `GET /app/installations` lists every installation.
import http from 'node:http';

export interface Upstream {
  installationId: number;
  owner: string;
  url: string;
}

const INSTALLATION_PATH = /^(?:\/api\/v3)?\/app\/installations\/(\d+)(?:\/|$)/;
const REPOS_PATH = /^(?:\/api\/v3)?\/repos\/([^/]+)\//;
const LIST_PATH = /^(?:\/api\/v3)?\/app\/installations\/?(?:\?|$)/;
const TOKEN_HEADER = /^(?:token|bearer)\s+(ghs_\S+)$/i;

export class InstallationsProxy {
  private server: http.Server | null = null;
  private readonly tokens = new Map<string, Upstream>();
  port = 0;

  constructor(private readonly upstreams: Upstream[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The installation a request acts for, or null when nothing in it names one. */
  upstreamOf(url: string, authorization: string | undefined): Upstream | null {
    const id = INSTALLATION_PATH.exec(url)?.[1];
    if (id !== undefined) return this.upstreams.find((u) => u.installationId === Number(id)) ?? null;
    const token = TOKEN_HEADER.exec(authorization ?? '')?.[1];
    if (token !== undefined) return this.tokens.get(token) ?? null;
    const owner = REPOS_PATH.exec(url)?.[1];
    if (owner !== undefined) return this.upstreams.find((u) => u.owner === owner) ?? null;
    return null;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'GET' && LIST_PATH.test(url)) {
          void this.listAll(url, req.headers).then(
            (all) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(all)),
            (e: unknown) => res.writeHead(502).end(String(e)),
          );
          return;
        }
        // The app's own calls (`GET /app`) are the same on every installation's GitHub.
        const up = this.upstreamOf(url, req.headers.authorization) ?? this.upstreams[0];
        const learnsToken = req.method === 'POST' && /\/access_tokens$/.test(url.split('?')[0]);
        const out = http.request(`${up.url}${url}`, { method: req.method, headers: req.headers }, (answer) => {
          if (!learnsToken) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            try {
              const token: unknown = Reflect.get(Object(JSON.parse(text)), 'token');
              if (typeof token === 'string') this.tokens.set(token, up);
            } catch {
              // not JSON: GitHub's error answer, passed on as it is
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(text);
          });
        });
        out.once('error', () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
        out.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  private async listAll(url: string, headers: http.IncomingHttpHeaders): Promise<unknown[]> {
    const lists = await Promise.all(
      this.upstreams.map(async (u) => {
        const r = await fetch(`${u.url}${url}`, {
          headers: { authorization: String(headers.authorization ?? ''), accept: 'application/json' },
        });
        const json: unknown = await r.json();
        return Array.isArray(json) ? json : [];
      }),
    );
    return lists.flat();
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
