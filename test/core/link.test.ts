import { describe, expect, it } from 'vitest';
import { closingReferences, linkedChange, linkableText, type IssueRef } from '../../src/core/link.ts';

const REPO = 'acme/todo';

describe('linkedChange from the body alone (no closing list read)', () => {
  it.each([
    ['Candidate-for: #42', 42],
    ['Implements the calendar.\n\ncandidate-for: #7\nCloses #9', 7],
    ['Closes #42', 42],
    ['fixes #3 and also resolves #3', 3],
    ['Closes #1, closes #2', null],
    ['Mentions #42 only', null],
    ['', null],
    ['Fixes #12.', 12],
    ['This pull request fixes #12.', 12],
    ['Fixes: #12', 12],
    ['CLOSED #12', 12],
    ['- Fixes acme/todo#42', 42],
    ['- Fixes ACME/Todo#42', 42],
    ['Resolves https://github.com/acme/todo/issues/42', 42],
    ['Resolves https://ghe.example.com/acme/todo/issues/42', 42],
    ['Fixes other/repo#42', null],
    ['Fixes other/repo#42 and fixes #7', 7],
    ['prefixes #42', null],
    ['Fixes #42abc', null],
    ['> Fixes #42', null],
    ['> Quoted issue\nFixes #42 lazily continued', null],
    ['> Quoted issue\n\nFixes #43', 43],
    ['<!-- Fixes #42 -->', null],
    ['<!--\nFixes #42\n-->\nFixes #43', 43],
    ['`Fixes #42`', null],
    ['Say ``Fixes #42`` here', null],
    ['```\nFixes #42\n```', null],
    ['~~~md\nFixes #42\n~~~\nCloses #43', 43],
    ['<details>\n<summary>Original prompt</summary>\n\nFixes #41\n</details>\n\n- Fixes acme/todo#42', 42],
    ['<details><summary>x</summary>\n<details>\nFixes #1\n</details>\nFixes #2\n</details>\nFixes #3', 3],
    ['> Candidate-for: #42', null],
    ['```\nCandidate-for: #42\n```\nCloses #7', 7],
  ])('%j → %s', (body, expected) => expect(linkedChange(body, { repo: REPO, closing: null })).toBe(expected));

  it('without the repository known, only the short form counts', () => {
    expect(linkedChange('Fixes acme/todo#42')).toBeNull();
    expect(linkedChange('Fixes #42')).toBe(42);
  });
});

describe("linkedChange with GitHub's closing list", () => {
  const ref = (number: number, open = true, repo = REPO): IssueRef => ({ repo, number, open });
  it.each<[string, IssueRef[], number | null]>([
    ['', [ref(42)], 42], // a sidebar link: nothing in the body
    ['No keyword at all', [ref(42)], 42],
    ['Candidate-for: #7', [ref(42)], 7], // the explicit line wins
    ['', [ref(42), ref(43)], null], // two open issues: no candidate
    ['', [ref(42), ref(43, false)], 42], // only open issues count
    ['', [ref(42, true, 'other/repo')], null], // another repository's issue
    ['Fixes #42', [ref(42, false)], null], // the only issue is closed
    ['Fixes #42', [], 42], // not on the default branch: GitHub lists nothing, the body decides
    ['', [ref(42, true, 'ACME/TODO')], 42],
  ])('%j with %j → %s', (body, closing, expected) =>
    expect(linkedChange(body, { repo: REPO, closing })).toBe(expected),
  );
});

describe('closingReferences and linkableText', () => {
  it("lists this repository's issues once each, in order", () => {
    expect(closingReferences('Fixes #3, closes acme/todo#2, resolves #3, fixes x/y#9', REPO)).toEqual([3, 2]);
  });

  it("keeps the text outside Copilot's quoted prompt", () => {
    const body = [
      "Thanks for assigning this issue to me. I'm starting to work on it.",
      '',
      '<details>',
      '',
      '<summary>Original prompt</summary>',
      '',
      '> Fixes #12 in the issue text',
      '',
      '</details>',
      '',
      '- Fixes acme/todo#42',
      '',
      '<!-- START COPILOT CODING AGENT TIPS',
      'Fixes #13',
      'END COPILOT CODING AGENT TIPS -->',
    ].join('\n');
    expect(linkableText(body)).not.toMatch(/#12|#13|Original prompt/);
    expect(linkedChange(body, { repo: REPO, closing: null })).toBe(42);
  });
});
