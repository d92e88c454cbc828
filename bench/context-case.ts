// Child process for benchmark 3: builds one PR of generated files, then times Arbiter's path to
// the model's context (fetchPatch over a GitHub-like fake, selectContextFiles,
// buildAcceptanceContext) and a full parse of the diff, and prints time and peak memory as JSON.
// `citations` times verifyCitation for 100 quotes over the ~60 KB material of a small PR.
import { performance } from 'node:perf_hooks';
import { buildAcceptanceContext, selectContextFiles } from '../src/acceptance/context.ts';
import { verifyCitation, type CitationMaterial } from '../src/acceptance/citations.ts';
import { parseUnifiedDiff } from '../src/core/unified-diff.ts';
import { fetchPatch, type RestClient } from '../src/github/patch-reads.ts';
import type { HeadFile } from '../src/core/head-files.ts';
import { defaultConfig } from '../src/config/schema.ts';

/** GitHub's documented limits on a pull request's `.diff` (406 beyond) and its file list. */
const DIFF_MAX_FILES = 300;
/** A comparison lists at most this many files. */
const COMPARE_MAX_FILES = 300;
const DIFF_MAX_LINES = 20_000;
const FILES_PER_PAGE = 100;
/** GitHub leaves the `patch` out of a file-list entry this large. */
const FILE_PATCH_MAX_BYTES = 1_000_000;

interface GenFile {
  path: string;
  text: string;
  lines: number;
}

/** Deterministic source-like text: `lines` lines of about 40 bytes. */
function sourceText(seed: number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(`export const v${seed}_${i} = compute(${(seed * 7919 + i) % 100_003}, 'x');`);
  return `${out.join('\n')}\n`;
}

function fileDiff(f: GenFile): string {
  const added = f.text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `+${l}`)
    .join('\n');
  return `diff --git a/${f.path} b/${f.path}\nnew file mode 100644\n--- /dev/null\n+++ b/${f.path}\n@@ -0,0 +1,${f.lines} @@\n${added}\n`;
}

function generate(kind: string): GenFile[] {
  const many = /^files-(\d+)$/.exec(kind);
  if (many) {
    const n = Number(many[1]);
    return Array.from({ length: n }, (_, i) => ({
      path: `src/area${i % 50}/module-${i}.ts`,
      text: sourceText(i, 20),
      lines: 20,
    }));
  }
  if (kind === 'one-50mb') {
    const target = 50 * 1024 * 1024;
    const out: string[] = [];
    let size = 0;
    for (let i = 0; size < target; i++) {
      const line = `export const v1_${i} = compute(${(7919 + i) % 100_003}, 'x');`;
      out.push(line);
      size += line.length + 1;
    }
    return [{ path: 'data/huge.ts', text: `${out.join('\n')}\n`, lines: out.length }];
  }
  throw new Error(`unknown case ${kind}`);
}

/**
 * Answers the requests fetchPatch makes the way GitHub does, from the generated files: the
 * comparison (at most 300 files, none with a patch past the answer's diff limit), the `.diff`,
 * the file pages.
 * Every answer is built here, before the clock starts, so the timings are Arbiter's alone.
 */
function fakeGitHub(files: GenFile[], diff: string): RestClient {
  const totalLines = files.reduce((n, f) => n + f.lines, 0);
  const entries = files.map((f) => {
    const patch = fileDiff(f).split('\n').slice(4).join('\n');
    return {
      filename: f.path,
      status: 'added',
      additions: f.lines,
      deletions: 0,
      ...(Buffer.byteLength(patch) <= FILE_PATCH_MAX_BYTES ? { patch } : {}),
    };
  });
  // Past the diff limit of one answer, GitHub lists a file with 0 changes and no patch.
  let listed = 0;
  const compared = entries.slice(0, COMPARE_MAX_FILES).map((e) => {
    if (listed >= DIFF_MAX_LINES) return { filename: e.filename, status: e.status, additions: 0, deletions: 0 };
    listed += e.patch?.split('\n').length ?? 0;
    return e;
  });
  return {
    async request(route, params) {
      if (route.startsWith('GET /repos/{owner}/{repo}/compare/'))
        return { data: { merge_base_commit: { sha: 'b'.repeat(40) }, files: compared } };
      if (route === 'GET /repos/{owner}/{repo}/pulls/{pull_number}') {
        if (files.length > DIFF_MAX_FILES || totalLines > DIFF_MAX_LINES)
          throw Object.assign(new Error('diff too large'), { status: 406 });
        return { data: diff };
      }
      if (route === 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files') {
        const page = Number(params?.page ?? 1);
        return { data: entries.slice((page - 1) * FILES_PER_PAGE, page * FILES_PER_PAGE) };
      }
      throw Object.assign(new Error(`unexpected ${route}`), { status: 404 });
    },
  };
}

const mb = (n: number) => Math.round((n / 1024 / 1024) * 100) / 100;
const kbToMb = (kb: number) => Math.round((kb / 1024) * 10) / 10;

async function contextCase(kind: string) {
  const files = generate(kind);
  const diff = files.map(fileDiff).join('');
  const config = defaultConfig().acceptance;
  const github = fakeGitHub(files, diff);
  const inputRssMb = kbToMb(process.resourceUsage().maxRSS);

  const t0 = performance.now();
  const patch = await fetchPatch(github, { owner: 'o', repo: 'r', pr: 1, baseRef: 'main', headSha: 'a'.repeat(40) });
  const t1 = performance.now();
  const first = selectContextFiles({ patch, config });
  const byPath = new Map(files.map((f) => [f.path, f]));
  // What the one GraphQL read would hand back: the selected files in full (the worst case).
  const headFiles = new Map<string, HeadFile>();
  for (const p of first.paths) {
    const f = byPath.get(p);
    if (f) headFiles.set(p, { text: f.text, byteSize: Buffer.byteLength(f.text), isBinary: false, isTruncated: false });
  }
  const t2 = performance.now();
  const ctx = buildAcceptanceContext({ patch, headFiles, config });
  const t3 = performance.now();
  const contextRssMb = kbToMb(process.resourceUsage().maxRSS);
  const parsed = parseUnifiedDiff(diff, { keepLines: true });
  const t4 = performance.now();
  return {
    case: kind,
    files: files.length,
    diffMb: mb(Buffer.byteLength(diff)),
    fetchPatchMs: t1 - t0,
    selectMs: t2 - t1,
    buildMs: t3 - t2,
    contextMs: t3 - t0,
    parseFullDiffMs: t4 - t3,
    parsedFiles: parsed.length,
    patchStoredMb: mb(Buffer.byteLength(patch.patch)),
    patchTruncated: patch.truncated,
    materialBytes: Buffer.byteLength(ctx.material),
    sentFiles: ctx.sent.length,
    omittedFiles: ctx.omitted.length,
    contextTruncated: ctx.truncated,
    inputRssMb,
    contextRssMb,
    peakRssMb: kbToMb(process.resourceUsage().maxRSS),
    heapUsedMb: mb(process.memoryUsage().heapUsed),
  };
}

async function citationsCase() {
  const files = generate('files-40');
  const diff = files.map(fileDiff).join('');
  const config = defaultConfig().acceptance;
  const patch = await fetchPatch(fakeGitHub(files, diff), {
    owner: 'o',
    repo: 'r',
    pr: 1,
    baseRef: 'main',
    headSha: 'a'.repeat(40),
  });
  const headFiles = new Map<string, HeadFile>();
  for (const p of selectContextFiles({ patch, config }).paths) {
    const f = files.find((x) => x.path === p);
    if (f) headFiles.set(p, { text: f.text, byteSize: f.text.length, isBinary: false, isTruncated: false });
  }
  const ctx = buildAcceptanceContext({ patch, headFiles, config });
  const material: CitationMaterial = {
    files: ctx.sent.map((s) => ({ path: s.path, text: s.text })),
    patch: ctx.patchText,
  };
  // 80 quotes that occur (a line of a sent file), 20 that do not.
  const citations = Array.from({ length: 100 }, (_, i) => {
    const f = ctx.sent[i % ctx.sent.length];
    const lines = f.text.split('\n').filter((l) => l.length > 20);
    const line = lines[(i * 7) % lines.length];
    return { path: f.path, quote: i % 5 === 4 ? `${line} // not in the file ${i}` : line };
  });
  const t0 = performance.now();
  const warm = citations.map((c) => verifyCitation(c, material));
  const t1 = performance.now();
  // Cold: a fresh material object each time, so every call prepares the material again.
  const cold = citations.map((c) => verifyCitation(c, { files: material.files, patch: material.patch }));
  const t2 = performance.now();
  return {
    case: 'citations',
    materialBytes: Buffer.byteLength(ctx.material),
    citations: citations.length,
    verified: warm.filter((r) => r.ok).length,
    verifiedCold: cold.filter((r) => r.ok).length,
    totalMs: t1 - t0,
    coldTotalMs: t2 - t1,
    peakRssMb: kbToMb(process.resourceUsage().maxRSS),
  };
}

const kind = process.argv[2] ?? '';
const result = kind === 'citations' ? await citationsCase() : await contextCase(kind);
process.stdout.write(`${JSON.stringify(result)}\n`);
