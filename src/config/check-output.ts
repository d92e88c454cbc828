// Renders the `Arbiter / config` check run (pure): conclusion, title, a summary listing every
// `path (line N): message`, and an annotation on each line of `.github/arbiter.yml` (at most 50).
import { CONFIG_PATH } from '../core/config-file.ts';
import { formatConfigError, type ConfigError } from './errors.ts';
import type { LoadConfigResult } from './load.ts';
import type { CheckAnnotation } from './port.ts';
import { modeLine } from '../core/render/mode-words.ts';

export const CONFIG_CHECK_NAME = 'Arbiter / config';
export const MAX_ANNOTATIONS = 50;
const MAX_SUMMARY = 65_535;

export interface ConfigCheckOutput {
  conclusion: 'success' | 'failure';
  title: string;
  summary: string;
  annotations: CheckAnnotation[];
}

const fenced = (body: string): string => {
  // A fence longer than any backtick run inside, so user-written values cannot end it.
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${body}\n${fence}`;
};

/** As many error lines as fit in a check-run summary, then how many were left out. */
const listedErrors = (errors: readonly ConfigError[]): string => {
  const budget = MAX_SUMMARY - 1_000;
  const lines: string[] = [];
  let used = 0;
  for (const line of errors.map(formatConfigError)) {
    if (used + line.length + 1 > budget) break;
    lines.push(line);
    used += line.length + 1;
  }
  const left = errors.length - lines.length;
  return left === 0 ? lines.join('\n') : `${lines.join('\n')}\n… and ${left} more`;
};

const annotationsOf = (errors: readonly ConfigError[]): CheckAnnotation[] =>
  errors
    .filter((error): error is ConfigError & { line: number } => error.line !== null && error.file === undefined)
    .slice(0, MAX_ANNOTATIONS)
    .map((error) => ({
      path: CONFIG_PATH,
      start_line: error.line,
      end_line: error.line,
      annotation_level: 'failure',
      title: error.path === '' ? 'Invalid configuration' : `Invalid ${error.path}`,
      message: formatConfigError(error),
    }));

export const renderConfigCheck = (result: LoadConfigResult): ConfigCheckOutput => {
  if (result.ok) {
    const from =
      result.source === 'default'
        ? `No \`${CONFIG_PATH}\` was found: Arbiter uses the defaults (see docs/configuration.md).`
        : `Read from ${result.files.map((file) => `\`${file}\``).join(', ')}.`;
    return {
      conclusion: 'success',
      title: 'Configuration is valid',
      summary: `${from}\n\n${modeLine(result.config)}`,
      annotations: [],
    };
  }
  const count = result.errors.length;
  const title = `Invalid ${CONFIG_PATH}: ${count} ${count === 1 ? 'error' : 'errors'}`;
  const summary = [
    `Arbiter does nothing in this repository until \`${CONFIG_PATH}\` is valid on the default branch.`,
    '',
    fenced(listedErrors(result.errors)),
  ].join('\n');
  return { conclusion: 'failure', title, summary, annotations: annotationsOf(result.errors) };
};
