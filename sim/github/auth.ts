// App authentication as GitHub does it: RS256 JWTs issued by the app (signature checked when a
// public key is known) for the /app endpoints, and installation tokens (`ghs_…`) for the rest.
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

const JwtHeader = z.object({ alg: z.literal('RS256'), typ: z.string().optional() });
const JwtClaims = z.object({ iss: z.union([z.string(), z.number()]), iat: z.number(), exp: z.number() });

export interface Installation {
  token: string;
  installationId: number;
  expiresAt: number;
}

export type Credential =
  { kind: 'jwt' } | { kind: 'installation'; installationId: number } | { kind: 'none'; reason: string };

const decodePart = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
};

export class AppAuth {
  private readonly tokens = new Map<string, Installation>();
  private readonly key: KeyObject | null;

  constructor(
    private readonly appId: number,
    publicKeyPem: string | undefined,
    private readonly now: () => number,
  ) {
    this.key = publicKeyPem ? createPublicKey(publicKeyPem) : null;
  }

  /** Checks a JWT: well-formed RS256, issued by this app, signed by its key when known. Null when fine. */
  checkJwt(jwt: string): string | null {
    const parts = jwt.split('.');
    if (parts.length !== 3) return 'A JSON web token could not be decoded';
    const header = JwtHeader.safeParse(decodePart(parts[0]));
    const claims = JwtClaims.safeParse(decodePart(parts[1]));
    if (!header.success || !claims.success) return 'A JSON web token could not be decoded';
    if (String(claims.data.iss) !== String(this.appId))
      return `'Issuer' claim ('iss') must be the app id ${this.appId}`;
    if (
      this.key &&
      !verify('RSA-SHA256', Buffer.from(`${parts[0]}.${parts[1]}`), this.key, Buffer.from(parts[2], 'base64url'))
    )
      return 'A JSON web token could not be decoded';
    return null;
  }

  issueToken(installationId: number): Installation {
    const installation: Installation = {
      token: `ghs_${randomBytes(18).toString('base64url')}`,
      installationId,
      expiresAt: this.now() + 3_600_000,
    };
    this.tokens.set(installation.token, installation);
    return installation;
  }

  /** What an Authorization header proves. */
  identify(header: string | undefined): Credential {
    const m = /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '');
    if (!m) return { kind: 'none', reason: 'Requires authentication' };
    const value = m[1];
    const installation = this.tokens.get(value);
    if (installation) return { kind: 'installation', installationId: installation.installationId };
    if (value.split('.').length === 3 && /^bearer/i.test(header ?? '')) {
      const problem = this.checkJwt(value);
      return problem === null ? { kind: 'jwt' } : { kind: 'none', reason: problem };
    }
    return { kind: 'none', reason: 'Bad credentials' };
  }
}
