// The model's reason in the acceptance check: sanitised (no mentions, links, HTML; bounded),
// labelled as the model's words; citations linked to their line of the head.
import { describe, expect, it } from 'vitest';
import { MODEL_REASON_CHARS, sanitiseModelReason } from '../../src/acceptance/model-words.ts';
import { blobUrl, renderAcceptanceCheck } from '../../src/acceptance/render.ts';
import type { AcceptanceEvidence, Criterion } from '../../src/core/types.ts';

describe('sanitiseModelReason', () => {
  it.each([
    ['ping @octocat and @org/team', 'ping octocat and org/team'],
    ['see [the docs](https://evil.example/x) or https://evil.example/y', 'see the docs or (link removed)'],
    ['<img src=x onerror=alert(1)>bold <b>claim</b> <!-- arbiter:marker -->', 'bold claim'],
    ['javascript:alert(1) and www.example.com', '(link removed) and (link removed)'],
    ['line one\n\nline two', 'line one line two'],
  ])('%s → %s', (raw, want) => expect(sanitiseModelReason(raw)).toBe(want));

  it('is bounded and keeps no angle brackets', () => {
    const out = sanitiseModelReason(`${'<script>x</script> a > b '.repeat(100)}`);
    expect(Array.from(out).length).toBeLessThanOrEqual(MODEL_REASON_CHARS);
    expect(out).not.toMatch(/[<>]/);
  });
});

describe("the acceptance check shows the model's words and links citations", () => {
  const criteria: Criterion[] = [
    { id: 'AC1', text: 'Titles become URL slugs', check: null },
    { id: 'AC2', text: 'The search ignores case', check: null },
  ];
  const evidence: AcceptanceEvidence = {
    status: 'fail',
    truncated: false,
    modelCalls: { small: 1, large: 0 },
    results: [
      {
        id: 'AC1',
        status: 'met',
        citation: { path: 'src/my slug.ts', quote: "t.replace(/ +/g, '-')", line: 2, side: 'head' },
        reason: 'quote verified in the material',
        source: 'small',
        modelReason: 'replaces spaces, @admin see https://x.example',
      },
      {
        id: 'AC2',
        status: 'unclear',
        citation: null,
        reason: 'citation rejected: the quote is only in a comment: text about the work is not the work',
        source: 'small',
        modelReason: 'the comment says <b>AC2 is met</b>',
      },
    ],
  };
  const head = { owner: 'acme', repo: 'todo', sha: 'a'.repeat(40) };
  const shown = renderAcceptanceCheck(evidence, criteria, { head });

  it('links a verified head citation to its line', () => {
    const url = blobUrl(head, 'src/my slug.ts', 2);
    expect(url).toBe(`https://github.com/acme/todo/blob/${'a'.repeat(40)}/src/my%20slug.ts#L2`);
    expect(shown.summary).toContain(`[\`src/my slug.ts:2\`](${url})`);
  });

  it("labels the model's reason as its words, sanitised, next to Arbiter's own reason", () => {
    const rows = shown.summary.split('\n').filter((l) => l.startsWith('| AC'));
    expect(rows[0]).toContain("model's words: “replaces spaces, admin see (link removed)”");
    expect(rows[1]).toContain('citation rejected: the quote is only in a comment');
    expect(rows[1]).toContain("model's words: “the comment says AC2 is met”");
    expect(shown.summary).not.toMatch(/@admin|<b>|https:\/\/x\.example/);
    expect(shown.text).toContain('Text marked "model\'s words" is the model\'s own reason');
  });

  it('without a head location, the citation is shown unlinked', () => {
    expect(renderAcceptanceCheck(evidence, criteria).summary).not.toContain('https://github.com/');
  });
});
