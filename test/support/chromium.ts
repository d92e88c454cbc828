// One headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: the
// browser reads commands on fd 3 and answers on fd 4, each message ending in a NUL byte), so a test
// can open many pages in one browser: read what a person sees and take a picture of the whole page.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--hide-scrollbars',
  '--remote-debugging-pipe',
];

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** What a page shows: its text as laid out, the codes set in bold, and its picture's size. */
export interface Shot {
  text: string;
  boldCodes: string[];
  width: number;
  height: number;
}

// Read in the page after its picture is taken: every `<details>` opened, the folded receipt (a JSON
// code block, for tools) set aside; `innerText` is the text as laid out, a code in bold `<strong><code>`.
const READ = `document.querySelectorAll('details').forEach((d) => { d.open = true; });
document.querySelectorAll('pre > code.language-json').forEach((c) => c.parentElement.remove());
JSON.stringify({
  text: document.body.innerText,
  boldCodes: [...document.querySelectorAll('strong code, b code, code strong, code b')].map((e) => e.textContent),
})`;

export class Browser {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  private readonly waiters: { method: string; sessionId: string; resolve: () => void }[] = [];
  private buffer = '';
  private exited: Error | null = null;
  /** Tabs free for the next page, by width. */
  private readonly tabs = new Map<number, { targetId: string; sessionId: string }[]>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => this.receive(chunk));
    child.once('exit', (code) => {
      this.exited = new Error(`Chromium exited (code ${code})`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  /** Starts the browser at `executable` with a fresh profile of its own. */
  static launch(executable: string): Browser {
    const profile = mkdtempSync(join(tmpdir(), 'arbiter-chromium-'));
    const child = spawn(executable, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    return new Browser(child, profile);
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(this.buffer.slice(0, end)) as Message;
      this.buffer = this.buffer.slice(end + 1);
      if (message.id !== undefined) {
        const p = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) p?.reject(new Error(message.error.message));
        else p?.resolve(message);
        continue;
      }
      const at = this.waiters.findIndex((w) => w.method === message.method && w.sessionId === message.sessionId);
      if (at >= 0) this.waiters.splice(at, 1)[0].resolve();
    }
  }

  private async send(method: string, params: object = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.exited) throw this.exited;
    const id = ++this.next;
    const answer = new Promise<Message>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    (this.child.stdio[3] as Writable).write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    return (await answer).result ?? {};
  }

  private event(method: string, sessionId: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ method, sessionId, resolve }));
  }

  /**
   * Opens `file` in a tab `width` CSS pixels wide, writes the whole page as a PNG to `png`, and
   * returns the page's text as the browser lays it out (`innerText`), folds opened, receipts aside.
   */
  async shoot(file: string, png: string, width = 1100): Promise<Shot> {
    // A tab is kept for the next page: opening one starts a renderer, which cost about as much as
    // loading and reading the page (92 fixture pages, 3 at once: 34 s with a new tab each).
    const tab = this.tabs.get(width)?.pop() ?? (await this.openTab(width));
    const { sessionId } = tab;
    try {
      const loaded = this.event('Page.loadEventFired', sessionId);
      await this.send('Page.navigate', { url: pathToFileURL(file).href }, sessionId);
      await loaded;
      const metrics = (await this.send('Page.getLayoutMetrics', {}, sessionId)) as {
        cssContentSize: { width: number; height: number };
      };
      const height = Math.ceil(metrics.cssContentSize.height);
      // PNG encoded for speed (a third larger, about 30% faster over the fixtures' pages).
      const shot = (await this.send(
        'Page.captureScreenshot',
        {
          format: 'png',
          optimizeForSpeed: true,
          captureBeyondViewport: true,
          clip: { x: 0, y: 0, width, height, scale: 1 },
        },
        sessionId,
      )) as { data: string };
      writeFileSync(png, Buffer.from(shot.data, 'base64'));
      const read = (await this.send('Runtime.evaluate', { expression: READ, returnByValue: true }, sessionId)) as {
        result: { value: string };
      };
      const { text, boldCodes } = JSON.parse(read.result.value) as { text: string; boldCodes: string[] };
      this.tabs.set(width, [...(this.tabs.get(width) ?? []), tab]);
      return { text, boldCodes, width, height };
    } catch (error) {
      await this.send('Target.closeTarget', { targetId: tab.targetId }).catch(() => undefined);
      throw error;
    }
  }

  /** A new tab `width` CSS pixels wide, its page events on. */
  private async openTab(width: number): Promise<{ targetId: string; sessionId: string }> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    await this.send('Page.enable', {}, sessionId);
    await this.send(
      'Emulation.setDeviceMetricsOverride',
      { width, height: 800, deviceScaleFactor: 1, mobile: false },
      sessionId,
    );
    return { targetId, sessionId };
  }

  /** Closes the browser and removes its profile. */
  async close(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise((resolve) => this.child.once('exit', resolve));
      await this.send('Browser.close').catch(() => undefined);
      await gone;
    }
    rmSync(this.profile, { recursive: true, force: true });
  }
}
