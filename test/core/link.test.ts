import { describe, expect, it } from 'vitest';
import { linkedChange } from '../../src/core/link.ts';

describe('linkedChange', () => {
  it.each([
    ['Candidate-for: #42', 42],
    ['Implements the calendar.\n\ncandidate-for: #7\nCloses #9', 7],
    ['Closes #42', 42],
    ['fixes #3 and also resolves #3', 3],
    ['Closes #1, closes #2', null],
    ['Mentions #42 only', null],
    ['', null],
  ])('%j → %s', (body, expected) => expect(linkedChange(body)).toBe(expected));
});
