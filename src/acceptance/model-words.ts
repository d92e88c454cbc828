// The model's short reason for a criterion, made safe to show in a check run: no secrets, no
// HTML, no links, no @-mentions, one line, bounded. Always shown labelled as the model's words.
import { boundChars, redactSecrets } from '../llm/redact.ts';

/** The model's reason is cut to this many characters. */
export const MODEL_REASON_CHARS = 200;

/**
 * Strips what could act on GitHub or a reader: HTML tags and comments (hidden markers), markdown
 * links and images (their text is kept), bare URLs and domains, and the `@` of mentions (so no
 * one is notified). Line breaks and runs of whitespace become one space.
 */
export function sanitiseModelReason(reason: string): string {
  const text = redactSecrets(reason)
    .text.replace(/<!--[\s\S]*?(-->|$)/g, ' ')
    .replace(/<\/?[A-Za-z][^>]*>?/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\b(?:https?|ftp|file|data|javascript):\S*/gi, '(link removed)')
    .replace(/\bwww\.\S+/gi, '(link removed)')
    .replace(/[<>]/g, ' ')
    .replace(/@+(?=[A-Za-z0-9_-])/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return boundChars(text, MODEL_REASON_CHARS);
}
