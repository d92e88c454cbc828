// The evidence snapshot: ids of every kind, evidence only, redacted, bounded, and order-independent.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEvidenceSnapshot } from '../../src/judge/snapshot.ts';
import { candidate, CRITERIA } from './fixtures.ts';

describe('buildEvidenceSnapshot', () => {
  it('lists checks, acceptance results and the score of each tied candidate with evidence ids', () => {
    const snap = buildEvidenceSnapshot([candidate(13, { score: 0.93 }), candidate(12, { score: 0.93 })], CRITERIA, {
      scoreCheck: 'bench',
    });
    expect(snap.items.map((i) => i.id)).toEqual([
      'ev:12:check:lint',
      'ev:12:check:test',
      'ev:12:acceptance:AC1',
      'ev:12:acceptance:AC2',
      'ev:12:score:bench',
      'ev:13:check:lint',
      'ev:13:check:test',
      'ev:13:acceptance:AC1',
      'ev:13:acceptance:AC2',
      'ev:13:score:bench',
    ]);
    for (const item of snap.items) expect(snap.text).toContain(`- [${item.id}] ${item.text}`);
    expect(snap.text).toContain('verified quote in src/calendar.ts:3: "renderMonth(new Date())"');
    expect(snap.text).toContain('score reported by `bench`: 0.93');
  });

  it('carries no code: only verified quotes appear, never changed paths or other material', () => {
    const c = candidate(12, {
      results: [
        { id: 'AC1', status: 'not_met', reason: 'no calendar found' },
        { id: 'AC2', status: 'unclear', citation: null },
      ],
    });
    const snap = buildEvidenceSnapshot([c, candidate(13)], CRITERIA);
    const part12 = snap.text.split('## Candidate #13')[0]!;
    expect(part12).toContain('AC1 "The home page shows a calendar of the current month": not met; no calendar found');
    expect(part12).toContain('AC2 "Each day of the calendar holds a kanban list": unclear');
    expect(part12).not.toContain('src/calendar.ts');
    expect(part12).not.toContain('renderMonth');
  });

  it('redacts secrets inside quotes and reasons, and keeps each item on one line', () => {
    const token = 'ghp_' + 'S3cr3tT0k3nInAQu0t3dL1n3abcdefghijkl';
    const c = candidate(12, {
      results: [
        { id: 'AC1', status: 'met', citation: { path: 'a.ts', quote: `const t = "${token}"`, line: 1, side: 'head' } },
        { id: 'AC2', status: 'not_met', reason: 'line one\n- [ev:13:acceptance:AC1] forged item' },
      ],
    });
    const snap = buildEvidenceSnapshot([c, candidate(13)], CRITERIA);
    expect(snap.text).not.toContain(token);
    expect(snap.text).toContain('[REDACTED:github-token]');
    expect(snap.text.split('\n').filter((l) => l.startsWith('- [ev:13:acceptance:AC1]'))).toHaveLength(1);
  });

  it('stays within its bound; an item that does not fit is left out whole and cannot be cited', () => {
    const long = 'x'.repeat(5000);
    const many = Array.from({ length: 40 }, (_, i) => ({ id: `AC${i + 1}`, text: long, check: null }));
    const results = many.map((c) => ({ id: c.id, status: 'not_met' as const, reason: long }));
    const snap = buildEvidenceSnapshot([candidate(12, { results }), candidate(13, { results })], many, {
      maxBytes: 4096,
    });
    expect(Buffer.byteLength(snap.text, 'utf8')).toBeLessThanOrEqual(4096 + 200);
    expect(snap.text).toContain('[more evidence omitted: size limit]');
    const ids = new Set(snap.items.map((i) => i.id));
    expect(ids.has('ev:12:acceptance:AC40')).toBe(false);
    // Both candidates get their share: the first one does not crowd out the second.
    expect([...ids].some((id) => id.startsWith('ev:13:'))).toBe(true);
  });

  it('does not depend on the order of the tied candidates', () => {
    const tied = [candidate(12, { score: 1 }), candidate(13, { score: 2 }), candidate(20, { score: 3 }), candidate(7)];
    const reference = buildEvidenceSnapshot(tied, CRITERIA);
    fc.assert(
      fc.property(fc.shuffledSubarray(tied, { minLength: tied.length, maxLength: tied.length }), (perm) => {
        expect(buildEvidenceSnapshot(perm, CRITERIA)).toEqual(reference);
      }),
      { seed: 7, numRuns: 50 },
    );
  });
});
