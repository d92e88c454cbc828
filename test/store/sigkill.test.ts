// A process writing to a PGlite folder is SIGKILLed mid-write; a new store on the same folder
// opens, and every write the dead process saw committed is there.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/store.ts';
import { freshPgliteDir } from './backends.ts';

const CHILD = fileURLToPath(new URL('./fixtures/write-forever.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs the writer until it reports `count` commits, then SIGKILLs it; returns what it reported. */
function writeThenKill(dir: string, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const committed: string[] = [];
    let buf = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.on('data', (d) => {
      buf += String(d);
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) if (l.startsWith('committed ')) committed.push(l.slice('committed '.length));
      if (committed.length >= count && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve([...committed]);
      else reject(new Error(`writer exited with ${code}: ${stderr}`));
    });
  });
}

describe('PGlite survives SIGKILL', () => {
  it('keeps every committed write across two kills', { timeout: 180_000 }, async () => {
    const dir = await freshPgliteDir('sigkill');
    dirs.push(dir);
    const first = await writeThenKill(dir, 30);
    expect(first.length).toBeGreaterThanOrEqual(30);
    // A second writer on the folder the first left behind, killed again.
    const store = await createStore({ dataDir: dir });
    for (const id of first) expect(await store.getDelivery(id)).not.toBeNull();
    await store.db.exec('DELETE FROM deliveries');
    await store.close();
    const second = await writeThenKill(dir, 10);
    const reopened = await createStore({ dataDir: dir });
    try {
      for (const id of second) expect((await reopened.getDelivery(id))?.event).toBe('push');
      // Still writable after the crash.
      expect(await reopened.recordDelivery('after-crash', 'push', {})).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});
