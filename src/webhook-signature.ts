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

/**
 * GitHub caps a webhook's payload at 25 MB and delivers none larger ("Webhook events and payloads"):
 * a bigger body is not GitHub's, and is refused before it is all read or kept in memory.
 */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

const TOO_LARGE = JSON.stringify({ error: `payload over ${MAX_WEBHOOK_BYTES} bytes: GitHub sends none larger` });

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
    const refuseLarge = (bytes: number): true => {
      log.warn(
        { delivery: header(req, 'x-github-delivery') ?? null, bytes, remote: req.socket.remoteAddress ?? null },
        'webhook refused: over 25 MB, GitHub sends none larger (body not read)',
      );
      // The rest of the body is not read: the connection closes once the answer is sent.
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end(TOO_LARGE);
      res.once('finish', () => req.destroy());
      return true;
    };
    // Refused on its declared length, before a byte is read.
    const declared = Number(header(req, 'content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BYTES) return refuseLarge(declared);
    const hmac = createHmac('sha256', secret);
    const chunks: Buffer[] = [];
    let bytes = 0;
    // Read by hand (not `for await`, whose early exit would destroy the socket before the 413 is sent).
    const read = await new Promise<'end' | 'over' | 'aborted'>((resolve) => {
      const onData = (chunk: unknown): void => {
        const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
        bytes += b.length;
        if (bytes > MAX_WEBHOOK_BYTES) {
          // A chunked body without a length is cut off as soon as it passes the cap.
          req.off('data', onData);
          req.pause();
          resolve('over');
          return;
        }
        hmac.update(b);
        chunks.push(b);
      };
      req.on('data', onData);
      req.once('end', () => resolve('end'));
      req.once('close', () => resolve('aborted'));
      req.once('error', () => resolve('aborted'));
    });
    if (read === 'over') return refuseLarge(bytes);
    if (read === 'aborted') {
      req.destroy();
      return true;
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
