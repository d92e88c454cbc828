// The emulator closes an issue on merge only for GitHub's closing keywords, never for a mere
// reference such as Arbiter's `Candidate-for: #N`.
import { describe, expect, it } from 'vitest';
import { referencedIssues } from '../../sim/github/model.ts';

describe('closing keywords', () => {
  it.each([
    ['Closes #42', [42]],
    ['fixes #7 and Resolves #8', [7, 8]],
    ['Fixed: #3', [3]],
    ['resolved #9', [9]],
  ])('%s closes %j', (body, expected) => {
    expect(referencedIssues(body)).toEqual(expected);
  });

  it.each(['Candidate-for: #42', 'See #42', 'Part of #42', 'prefixes #42'])('%s closes nothing', (body) => {
    expect(referencedIssues(body)).toEqual([]);
  });
});
