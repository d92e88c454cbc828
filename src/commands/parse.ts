// Finds the first slash command in a comment: `PREFIX VERB [ARGS]` at the start of a line.
// Quoted lines, fenced/indented code and HTML comments never count. Pure, linear in the input.

export interface ParsedCommand {
  /** Lower-cased verb; '' when the prefix stands alone. */
  verb: string;
  /** The rest of the line after the verb, trimmed. */
  args: string;
  /** The command line as written (leading spaces and trailing whitespace removed). */
  line: string;
}

interface OpenFence {
  char: '`' | '~';
  length: number;
  /** Lines indented less than this (and not blank) end the list item, so the fence too. */
  contentIndent: number;
}

/** A fence opener: up to 3 spaces, 3+ backticks or tildes, then an info string. */
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** A list-item marker that may carry a fence on the same line (`- ```` or `1. ~~~`). */
const LIST_MARKER = /^ {0,3}(?:[-+*]|\d{1,9}[.)]) {1,4}/;
const HTML_COMMENT_OPEN = /^ {0,3}<!--/;

const leadingSpaces = (line: string): number => {
  let i = 0;
  while (i < line.length && line[i] === ' ') i++;
  return i;
};

const isBlank = (line: string): boolean => line.trim() === '';

function openFence(line: string): OpenFence | null {
  const tryAt = (text: string, base: number): OpenFence | null => {
    const m = FENCE_OPEN.exec(text);
    if (!m) return null;
    const char = m[2][0] === '`' ? '`' : '~';
    // A backtick fence's info string may not contain a backtick (that is inline code).
    if (char === '`' && m[3].includes('`')) return null;
    return { char, length: m[2].length, contentIndent: base };
  };
  const direct = tryAt(line, 0);
  if (direct) return direct;
  const marker = LIST_MARKER.exec(line);
  return marker ? tryAt(line.slice(marker[0].length), marker[0].length) : null;
}

/** Whether `line` closes `fence`: same character, at least as long, nothing but spaces after. */
function closesFence(line: string, fence: OpenFence): boolean {
  const indent = leadingSpaces(line);
  if (indent - fence.contentIndent > 3) return false;
  let i = indent;
  while (i < line.length && line[i] === fence.char) i++;
  if (i - indent < fence.length) return false;
  return line.slice(i).trim() === '';
}

/** Whether `line` is `prefix` followed by whitespace or the end, case-insensitively. */
function matchCommand(line: string, prefix: string): ParsedCommand | null {
  const indent = leadingSpaces(line);
  if (indent > 3) return null; // four spaces: an indented code block
  const after = indent + prefix.length;
  if (line.slice(indent, after).toLowerCase() !== prefix.toLowerCase()) return null;
  if (after < line.length && !/\s/.test(line[after])) return null; // `/arbiterx` is another word
  const rest = line.slice(after).trim();
  const space = rest.search(/\s/);
  const verb = (space === -1 ? rest : rest.slice(0, space)).toLowerCase();
  const args = space === -1 ? '' : rest.slice(space).trim();
  return { verb, args, line: line.slice(indent).trimEnd() };
}

/** The first command in `body` outside quotes, code and HTML comments; null when there is none. */
export function parseCommand(body: string, prefix: string): ParsedCommand | null {
  if (prefix.trim() === '') return null;
  let fence: OpenFence | null = null;
  let inHtmlComment = false;
  let start = 0;
  while (start <= body.length) {
    const end = body.indexOf('\n', start);
    const stop = end === -1 ? body.length : end;
    const line = body.slice(start, body[stop - 1] === '\r' ? stop - 1 : stop);
    start = stop + 1;

    if (fence) {
      if (closesFence(line, fence)) {
        fence = null;
        continue;
      }
      const leftListItem = fence.contentIndent > 0 && !isBlank(line) && leadingSpaces(line) < fence.contentIndent;
      if (!leftListItem) continue;
      fence = null; // the list item, and the fence inside it, ended: read this line normally
    }
    if (inHtmlComment) {
      if (line.includes('-->')) inHtmlComment = false;
      continue;
    }
    if (HTML_COMMENT_OPEN.test(line)) {
      inHtmlComment = !line.slice(line.indexOf('<!--') + 4).includes('-->');
      continue;
    }
    const opened = openFence(line);
    if (opened) {
      fence = opened;
      continue;
    }
    const command = matchCommand(line, prefix);
    if (command) return command;
  }
  return null;
}
