// Errors of the repository configuration: one readable `path (line N): message` line per
// problem for the `Arbiter / config` check, and the typed error thrown when GitHub cannot be read.
import { CONFIG_PATH } from '../core/config-file.ts';

/** One problem in `.github/arbiter.yml` (or in a base file it extends). */
export interface ConfigError {
  /** Dotted key path, `judge.rubric[0].id`; empty for the file as a whole. */
  path: string;
  /** 1-based line in the repository's `.github/arbiter.yml`; null when unknown or in another file. */
  line: number | null;
  message: string;
  /** Set when the problem is in another file than the repository's own, e.g. an `_extends` base. */
  file?: string;
}

/** `gate.requird (line 3): unknown key`; a whole-file problem is named by the file. */
export const formatConfigError = (error: ConfigError): string => {
  const subject = error.path === '' ? (error.file ?? CONFIG_PATH) : error.path;
  const where = error.line === null ? '' : ` (line ${error.line})`;
  const origin = error.file !== undefined && error.path !== '' ? ` (in ${error.file})` : '';
  return `${subject}${where}: ${error.message}${origin}`;
};

export const formatConfigErrors = (errors: readonly ConfigError[]): string => errors.map(formatConfigError).join('\n');

/** A GitHub request for the configuration or its check run failed (not a problem of the file itself). */
export class ConfigGitHubError extends Error {
  override readonly name = 'ConfigGitHubError';
  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
