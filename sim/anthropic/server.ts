// The fake Anthropic Messages endpoint (POST /v1/messages) on 127.0.0.1: answers from scenario
// scripts, applies scripted faults, and records every request for tests and transcripts.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { parseCallHeader, type CallHeader } from '../../src/llm/call-header.ts';
import {
  acceptanceAnswer,
  criterionIdsFromPrefix,
  ERROR_TYPES,
  judgeScriptFor,
  rubricAnswer,
  verdictAnswer,
  type ModelFault,
  type ModelScripts,
} from './scripts.ts';

export interface RecordedRequest {
  tier: 'small' | 'large';
  kind: 'acceptance' | 'judge';
  candidate: number | null;
  model: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the contract exposes the raw request body
  status: number;
}

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const RequestBody = z.looseObject({
  model: z.string(),
  messages: z
    .array(
      z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) }),
    )
    .min(1),
});

/** The texts of the first user message, block by block. */
function userTexts(body: z.infer<typeof RequestBody>): string[] {
  const first = body.messages.find((m) => m.role === 'user');
  if (first === undefined) return [];
  if (typeof first.content === 'string') return [first.content];
  return first.content.flatMap((b) => {
    const t = TextBlock.safeParse(b);
    return t.success ? [t.data.text] : [];
  });
}

interface Answer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
}

const errorAnswer = (status: number, message: string): Answer => ({
  status,
  json: { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message }, request_id: 'req_fake' },
});

interface Planned {
  /** null: no script, answer 529 unless a fault says otherwise. */
  text: string | null;
}

export class FakeAnthropic {
  readonly url: string;
  requests: RecordedRequest[] = [];
  private scripts: ModelScripts;
  private readonly faults: { fault: ModelFault; left: number }[];
  private readonly cached = new Set<string>();
  private seq = 0;

  private constructor(
    private readonly server: Server,
    scripts: ModelScripts,
    faults: ModelFault[],
  ) {
    this.url = `http://127.0.0.1:${listeningPort(server)}`;
    this.scripts = scripts;
    this.faults = faults.map((fault) => ({ fault, left: fault.times ?? Number.POSITIVE_INFINITY }));
  }

  static async start(opts: { scripts: ModelScripts; faults?: ModelFault[] }): Promise<FakeAnthropic> {
    let self: FakeAnthropic | null = null;
    const server = createServer((req, res) => {
      if (self === null) {
        res.writeHead(503).end();
        return;
      }
      self.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    self = new FakeAnthropic(server, opts.scripts, opts.faults ?? []);
    return self;
  }

  setScripts(s: ModelScripts): void {
    this.scripts = s;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/messages') return send(res, errorAnswer(404, 'not found'));

    let bodyJson: unknown;
    try {
      bodyJson = JSON.parse(raw);
    } catch {
      bodyJson = null;
    }
    const auth = req.headers['authorization'];
    const key = req.headers['x-api-key'];
    const authorised =
      (typeof auth === 'string' && /^Bearer \S+/.test(auth)) || (typeof key === 'string' && key !== '');

    const body = RequestBody.safeParse(bodyJson);
    const model = body.success ? body.data.model : '';
    const tier: 'small' | 'large' = model.includes('haiku') ? 'small' : 'large';
    const texts = body.success ? userTexts(body.data) : [];
    const header = texts.map((t) => parseCallHeader(t)).find((h) => h !== null) ?? null;
    const record: RecordedRequest = {
      tier,
      kind: header?.kind ?? 'acceptance',
      candidate: header?.kind === 'acceptance' ? header.candidate : null,
      model,
      body: bodyJson,
      status: 0,
    };
    this.requests.push(record);

    let answer: Answer;
    if (!authorised) answer = errorAnswer(401, 'invalid x-api-key');
    else if (!body.success || header === null) answer = errorAnswer(400, 'request without an [arbiter-call] header');
    else answer = await this.answer(tier, model, header, texts, body.data);
    record.status = answer.status;
    send(res, answer);
  }

  private takeFault(tier: 'small' | 'large', kind: 'acceptance' | 'judge'): ModelFault | null {
    const hit = this.faults.find(
      (f) =>
        f.left > 0 &&
        (f.fault.tier === undefined || f.fault.tier === tier) &&
        (f.fault.kind === undefined || f.fault.kind === kind),
    );
    if (hit === undefined) return null;
    hit.left -= 1;
    return hit.fault;
  }

  private plan(tier: 'small' | 'large', header: CallHeader, texts: string[]): Planned {
    if (header.kind === 'judge') {
      const judge = this.scripts.judge;
      if (judge === undefined) return { text: null };
      const script = judgeScriptFor(judge, header.candidates);
      return { text: JSON.stringify(header.mode === 'rubric' ? rubricAnswer(script) : verdictAnswer(script)) };
    }
    const script = header.candidate === null ? undefined : this.scripts.candidates[header.candidate]?.[tier];
    if (script === undefined) return { text: null };
    return { text: JSON.stringify(acceptanceAnswer(criterionIdsFromPrefix(texts[0] ?? ''), script)) };
  }

  private async answer(
    tier: 'small' | 'large',
    model: string,
    header: CallHeader,
    texts: string[],
    body: z.infer<typeof RequestBody>,
  ): Promise<Answer> {
    const fault = this.takeFault(tier, header.kind);
    if (fault?.delayMs !== undefined && fault.delayMs > 0) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.status !== undefined)
      return { ...errorAnswer(fault.status, `scripted fault ${fault.status}`), headers: fault.headers };
    const planned = this.plan(tier, header, texts);
    const overridden = fault?.text !== undefined || fault?.stop_reason !== undefined;
    if (planned.text === null && !overridden) return errorAnswer(529, 'Overloaded');
    const text = fault?.text ?? planned.text ?? '';
    const stop = fault?.stop_reason ?? 'end_turn';
    return { status: 200, json: this.message(model, stop, text, body), headers: fault?.headers };
  }

  /** A full Messages API answer; the content follows the stop reason as the real API would. */
  private message(model: string, stop: string, text: string, body: z.infer<typeof RequestBody>): unknown {
    this.seq += 1;
    const byStop: Record<string, () => unknown[]> = {
      end_turn: () => [{ type: 'text', text }],
      max_tokens: () => [{ type: 'text', text: text.slice(0, Math.floor(text.length / 2)) }],
      refusal: () => (text === '' ? [] : [{ type: 'text', text: text.slice(0, 20) }]),
      tool_use: () => [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: `toolu_fake_${this.seq}`, name: 'read_file', input: { path: 'README.md' } },
      ],
      pause_turn: () => [
        { type: 'server_tool_use', id: `srvtoolu_fake_${this.seq}`, name: 'web_search', input: { query: 'x' } },
      ],
    };
    const content = byStop[stop]?.() ?? [{ type: 'text', text }];
    const input = Math.ceil(JSON.stringify(body).length / 4);
    // Prompt caching, roughly: the first request with a given system + prefix writes the cache, later ones read it.
    const prefixKey = createHash('sha256')
      .update(JSON.stringify([body['system'] ?? null, userTexts(body)[0] ?? '']))
      .digest('hex');
    const hit = this.cached.has(prefixKey);
    this.cached.add(prefixKey);
    const prefixTokens = Math.ceil((userTexts(body)[0] ?? '').length / 4);
    return {
      id: `msg_fake_${this.seq}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: input,
        output_tokens: Math.ceil(text.length / 4),
        cache_creation_input_tokens: hit ? 0 : prefixTokens,
        cache_read_input_tokens: hit ? prefixTokens : 0,
      },
    };
  }
}

function listeningPort(server: Server): number {
  const addr: AddressInfo | string | null = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('fake Anthropic endpoint is not listening on TCP');
  return addr.port;
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return; // the client went away (an abort): nothing to answer
  const payload = JSON.stringify(answer.json);
  res.writeHead(answer.status, {
    ...answer.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    'request-id': 'req_fake',
  });
  res.end(payload);
}
