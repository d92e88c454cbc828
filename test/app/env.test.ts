// The environment parser: defaults, credentials all-or-nothing, one clear line per bad variable.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvError, readEnv } from '../../src/env.ts';
import { testPrivateKey } from './helpers.ts';

describe('readEnv', () => {
  it('has defaults and no credentials when nothing is set (the setup flow)', () => {
    const env = readEnv({});
    expect(env).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info', ARBITER_WORKERS: 4, credentials: null });
    expect(env.githubBaseUrl).toBeUndefined();
  });

  it('reads ARBITER_TRUST_AGENTS as a comma-separated list (none by default)', () => {
    expect(readEnv({}).ARBITER_TRUST_AGENTS).toEqual([]);
    expect(readEnv({ ARBITER_TRUST_AGENTS: ' copilot, my-agents[bot] ,,' }).ARBITER_TRUST_AGENTS).toEqual([
      'copilot',
      'my-agents[bot]',
    ]);
  });

  it('treats blank variables as unset', () => {
    expect(readEnv({ APP_ID: '', PRIVATE_KEY: '', WEBHOOK_SECRET: '', PORT: '' }).credentials).toBeNull();
  });

  it('reads credentials from PRIVATE_KEY (with escaped newlines) or PRIVATE_KEY_PATH', () => {
    const pem = testPrivateKey();
    const inline = readEnv({ APP_ID: '12', PRIVATE_KEY: pem.replace(/\n/g, '\\n'), WEBHOOK_SECRET: 's' });
    expect(inline.credentials).toEqual({ appId: 12, privateKey: pem, webhookSecret: 's' });
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'arbiter-env-')), 'key.pem');
    writeFileSync(file, pem);
    expect(readEnv({ APP_ID: '12', PRIVATE_KEY_PATH: file, WEBHOOK_SECRET: 's' }).credentials?.privateKey).toBe(pem);
  });

  it.each<[Record<string, string>, string]>([
    [{ APP_ID: 'twelve' }, 'APP_ID'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ ARBITER_WORKERS: '0' }, 'ARBITER_WORKERS'],
    [{ ANTHROPIC_BASE_URL: 'not a url' }, 'ANTHROPIC_BASE_URL'],
    [{ APP_ID: '1' }, 'PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET missing'],
    [{ APP_ID: '1', PRIVATE_KEY: 'not pem', WEBHOOK_SECRET: 's' }, 'PRIVATE_KEY: not a PEM'],
    [{ APP_ID: '1', PRIVATE_KEY_PATH: '/nonexistent/key.pem', WEBHOOK_SECRET: 's' }, 'PRIVATE_KEY_PATH: cannot read'],
  ])('rejects %o naming it', (vars, named) => {
    expect(() => readEnv(vars)).toThrow(EnvError);
    expect(() => readEnv(vars)).toThrow(named);
  });

  it('builds the GitHub Enterprise REST URL from GHE_HOST and GHE_PROTOCOL', () => {
    expect(readEnv({ GHE_HOST: '127.0.0.1:4000', GHE_PROTOCOL: 'http' }).githubBaseUrl).toBe(
      'http://127.0.0.1:4000/api/v3',
    );
    expect(readEnv({ GHE_HOST: 'ghe.example.com' }).githubBaseUrl).toBe('https://ghe.example.com/api/v3');
  });
});
