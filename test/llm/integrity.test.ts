// Completion integrity as a pure table, and the call header round trip the fake endpoint relies on.
import { describe, expect, it } from 'vitest';
import { formatCallHeader, parseCallHeader } from '../../src/llm/call-header.ts';
import { checkCompletion } from '../../src/llm/integrity.ts';

const message = (over: Record<string, unknown>) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-5-5',
  content: [{ type: 'text', text: '{"criteria":[]}' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 10, output_tokens: 5 },
  ...over,
});

describe('checkCompletion', () => {
  it('accepts a normal end with JSON text', () => {
    expect(checkCompletion(message({}))).toEqual({
      ok: true,
      text: '{"criteria":[]}',
      json: { criteria: [] },
      model: 'claude-haiku-5-5',
      usage: { input: 10, output: 5 },
    });
  });

  it.each([
    ['stop_sequence', message({ stop_reason: 'stop_sequence' }), 'model-error'],
    ['no stop reason', message({ stop_reason: null }), 'model-error'],
    ['an unknown stop reason', message({ stop_reason: 'something_new' }), 'model-error'],
    ['context window exceeded', message({ stop_reason: 'model_context_window_exceeded' }), 'max-tokens'],
    [
      'a tool_use block under end_turn',
      message({
        content: [
          { type: 'text', text: '{}' },
          { type: 'tool_use', id: 't', name: 'x', input: {} },
        ],
      }),
      'tool-use',
    ],
    ['no text block', message({ content: [{ type: 'thinking', thinking: '…' }] }), 'empty'],
    ['not a message at all', 'oops', 'model-error'],
    ['text that is not JSON', message({ content: [{ type: 'text', text: '{"a":' }] }), 'invalid-output'],
  ])('%s → gap', (_name, input, gap) => {
    expect(checkCompletion(input)).toEqual({ ok: false, gap });
  });

  it('joins several text blocks and bounds the total', () => {
    const parts = message({
      content: [
        { type: 'text', text: '{"a":' },
        { type: 'text', text: '1}' },
      ],
    });
    expect(checkCompletion(parts)).toMatchObject({ ok: true, json: { a: 1 } });
    expect(checkCompletion(parts, 4)).toEqual({ ok: false, gap: 'too-long' });
  });
});

describe('call header', () => {
  it('round-trips acceptance and judge headers', () => {
    const a = formatCallHeader({ kind: 'acceptance', candidate: 12 });
    expect(a).toBe('[arbiter-call] kind=acceptance candidate=12');
    expect(parseCallHeader(`${a}\nAC1: x`)).toEqual({ kind: 'acceptance', candidate: 12, candidates: [], mode: null });
    const j = formatCallHeader({ kind: 'judge', candidates: [12, 13], mode: 'rubric' });
    expect(j).toBe('[arbiter-call] kind=judge candidates=12,13 mode=rubric');
    expect(parseCallHeader(j)).toEqual({ kind: 'judge', candidate: null, candidates: [12, 13], mode: 'rubric' });
  });

  it('is only read from the first line', () => {
    expect(parseCallHeader('hello\n[arbiter-call] kind=acceptance candidate=12')).toBeNull();
    expect(parseCallHeader('[arbiter-call] kind=other')).toBeNull();
  });
});
