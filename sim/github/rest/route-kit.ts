// What every REST route handler gets and returns, and the helpers they share: repository
// lookup, body parsing with zod, and GitHub's paging (per_page, page, Link header).
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { Sent } from '../issue-acts.ts';
import type { Repo } from '../model.ts';
import { GitHubError, type World } from '../world.ts';

export interface RestRequest {
  world: World;
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingHttpHeaders;
  /** the login acting: the app's bot for installation tokens */
  actor: string;
  /** the app slug acting (for check runs) */
  app: string;
  out: Sent;
}

export interface RestResponse {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** readable account of a write, for the transcript */
  summary?: string;
}

export type RestHandler = (req: RestRequest) => RestResponse;

/** Handlers keyed by `METHOD /route` as the OpenAPI description spells it. */
export type RouteTable = Record<string, RestHandler>;

export function repoOf(req: RestRequest): Repo {
  const repo = req.world.findRepo(req.params.owner ?? '', req.params.repo ?? '');
  if (!repo) throw new GitHubError(404, 'Not Found');
  return repo;
}

export function intParam(req: RestRequest, name: string): number {
  const value = Number(req.params[name]);
  if (!Number.isInteger(value)) throw new GitHubError(404, 'Not Found');
  return value;
}

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success)
    throw new GitHubError(
      422,
      `Invalid request.\n\n${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('\n')}`,
    );
  return parsed.data;
}

/** One page of a list, with GitHub's Link header. */
export function paged<T>(
  req: RestRequest,
  items: T[],
  maxPerPage = 100,
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30) || 30, 1), maxPerPage);
  const page = Math.max(Number(req.query.get('page') ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (p: number, rel: string): string => {
    const query = new URLSearchParams(req.query);
    query.set('per_page', String(perPage));
    query.set('page', String(p));
    return `<${req.world.urls.api}${req.path}?${query.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(', ') } : {},
  };
}

export const ok = (json: unknown, summary?: string, status = 200): RestResponse => ({ status, json, summary });
