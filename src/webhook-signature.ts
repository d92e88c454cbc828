// The webhook's signature, checked before Probot sees the request: the body is read as it streams
// in (hashed chunk by chunk), and a delivery whose signature does not match is answered 400 and
// logged in one line, without its body (Probot would log the whole body twice, with its error).
// A good one is handed on as its raw bytes, so Probot does not read the stream again.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/** Probot's own answer to a bad signature (@octokit/webhooks), kept as GitHub's tools expect it. */
const BAD_SIGNATURE = 'Error: [@octokit/webhooks] signature does not match event payload and secret';

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The raw body Probot's webhook middleware takes instead of the stream (`request.rawBody`, a Uint8Array). */
interface WithRawBody {
  body?: unknown;
  rawBody?: Buffer;
}

/**
 * A route handler for the webhook path: reads and hashes the body; answers 400 (one log line) when
 * the `x-hub-signature-256` does not match `secret`, else hands the raw body on and returns false.
 */
export function verifyWebhookSignature(secret: string, log: Pick<Logger, 'warn'>) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== 'POST') return false;
    const signature = header(req, 'x-hub-signature-256');
    // Probot answers a request without its headers (400 naming them): nothing to read here.
    if (signature === undefined || header(req, 'x-github-event') === undefined) return false;
    const hmac = createHmac('sha256', secret);
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of req) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      hmac.update(b);
      chunks.push(b);
      bytes += b.length;
    }
    const expected = Buffer.from(`sha256=${hmac.digest('hex')}`);
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      const carrier = req as IncomingMessage & WithRawBody;
      carrier.body = {};
      carrier.rawBody = Buffer.concat(chunks, bytes);
      return false;
    }
    log.warn(
      {
        delivery: header(req, 'x-github-delivery') ?? null,
        event: header(req, 'x-github-event') ?? null,
        bytes,
        remote: req.socket.remoteAddress ?? null,
      },
      'webhook refused: its signature does not match WEBHOOK_SECRET (body not logged)',
    );
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: BAD_SIGNATURE }));
    return true;
  };
}
