// Reads `.github/arbiter.yml` of a repository at a ref: the raw text (for line numbers) and,
// when the file is missing or uses `_extends`, the layers Probot's config plugin resolves.
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { Octokit } from '../deps.ts';
import { CONFIG_PATH, ConfigGitHubError, type ConfigError } from './errors.ts';
import { isPlainObject, mergeConfigLayers } from './merge.ts';
import { EXTENDS_KEY, parseConfigText } from './parse.ts';
import { locatePath } from './yaml-lines.ts';
import { defaultConfig, type ArbiterConfig } from './schema.ts';

export interface RepoRef {
  owner: string;
  repo: string;
  /** Branch, tag or sha; the default branch when omitted. */
  ref?: string;
}

export type LoadConfigResult =
  | {
      ok: true;
      config: ArbiterConfig;
      /** `default`: no configuration file anywhere (repository, organisation `.github`, bases). */
      source: 'file' | 'default';
      /** The files the config was read from, most specific first, as `owner/repo:path`. */
      files: string[];
    }
  | { ok: false; errors: ConfigError[]; /** The repository file's text ('' when it has none). */ text: string };

const HttpStatus = z.object({ status: z.number() });
const statusOf = (error: unknown): number | null => {
  const parsed = HttpStatus.safeParse(error);
  return parsed.success ? parsed.data.status : null;
};

const RawText = z.union([z.string(), z.instanceof(ArrayBuffer).transform((bytes) => new TextDecoder().decode(bytes))]);

const PluginFile = z.object({
  owner: z.string(),
  repo: z.string(),
  path: z.string(),
  config: z.record(z.string(), z.unknown()).nullable(),
});
const PluginResult = z.object({ files: z.array(PluginFile) });
type PluginFile = z.infer<typeof PluginFile>;

const fileName = (file: { owner: string; repo: string; path: string }): string => `${file.owner}/${file.repo}:${file.path}`;

/** The raw text of the repository's own file, or null when it does not exist. */
const readConfigText = async (octokit: Octokit, { owner, repo, ref }: RepoRef): Promise<string | null> => {
  try {
    const response = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
      owner,
      repo,
      path: CONFIG_PATH,
      mediaType: { format: 'raw' },
      ...(ref === undefined ? {} : { ref }),
    });
    // GitHub labels raw files `application/vnd.github.raw; charset=utf-8` (text); without the
    // charset Octokit hands over bytes. A JSON answer (directory listing, submodule) is no file.
    const text = RawText.safeParse(response.data);
    if (!text.success) throw new ConfigGitHubError(`${CONFIG_PATH} in ${owner}/${repo} is not a file`, null);
    return text.data;
  } catch (error) {
    if (error instanceof ConfigGitHubError) throw error;
    const status = statusOf(error);
    if (status === 404) return null;
    throw new ConfigGitHubError(`reading ${CONFIG_PATH} of ${owner}/${repo} failed`, status, { cause: error });
  }
};

/** Probot's config plugin: the repository file, the organisation `.github` fallback, `_extends` bases. */
const readConfigLayers = async (
  octokit: Octokit,
  { owner, repo, ref }: RepoRef,
): Promise<{ ok: true; files: PluginFile[] } | { ok: false; message: string }> => {
  let raw: unknown;
  try {
    raw = await octokit.config.get({ owner, repo, path: CONFIG_PATH, ...(ref === undefined ? {} : { branch: ref }) });
  } catch (error) {
    const status = statusOf(error);
    if (status !== null) throw new ConfigGitHubError(`reading the configuration of ${owner}/${repo} failed`, status, { cause: error });
    // The plugin throws plain errors for content problems: bad YAML, a bad `_extends`, a loop.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: message.replace(/^\[@probot\/octokit-plugin-config\]\s*/, '') };
  }
  const parsed = PluginResult.safeParse(raw);
  if (!parsed.success) return { ok: false, message: 'a configuration file is not a mapping of settings' };
  return { ok: true, files: parsed.data.files };
};

const extendsLine = (text: string): number | null => {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const where = locatePath(doc, lines, [EXTENDS_KEY]);
  return where.found ? where.line : null;
};

const usesExtends = (text: string): boolean => {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return false;
  const value: unknown = doc.toJS();
  return isPlainObject(value) && value[EXTENDS_KEY] !== undefined;
};

const fromText = (text: string, files: string[], base?: { value: unknown; source: string }): LoadConfigResult => {
  const result = parseConfigText(text, base === undefined ? {} : { base: base.value, baseSource: base.source });
  return result.ok ? { ok: true, config: result.config, source: 'file', files } : { ok: false, errors: result.errors, text };
};

export const loadRepoConfig = async (octokit: Octokit, target: RepoRef): Promise<LoadConfigResult> => {
  const own = { owner: target.owner, repo: target.repo, path: CONFIG_PATH };
  const text = await readConfigText(octokit, target);
  // The common case needs one request; a YAML error is reported from our own parse, with its line.
  if (text !== null && !usesExtends(text)) return fromText(text, [fileName(own)]);

  const layers = await readConfigLayers(octokit, target);
  if (!layers.ok) {
    const line = text === null ? null : extendsLine(text);
    const path = line === null ? '' : EXTENDS_KEY;
    return { ok: false, errors: [{ path, line, message: layers.message }], text: text ?? '' };
  }
  const [, ...bases] = layers.files;

  if (text !== null) {
    const missing = bases.filter((file) => file.config === null);
    if (missing.length > 0) {
      const message = `the extended file ${missing.map(fileName).join(', ')} does not exist`;
      return { ok: false, errors: [{ path: EXTENDS_KEY, line: extendsLine(text), message }], text };
    }
    const base = mergeConfigLayers(bases.map((file) => file.config).reverse());
    return fromText(text, [fileName(own), ...bases.map(fileName)], { value: base, source: bases.map(fileName).join(', ') });
  }

  // No file in the repository: the organisation's `.github` repository may hold one.
  const found = bases.filter((file) => file.config !== null);
  if (found.length === 0) return { ok: true, config: defaultConfig(), source: 'default', files: [] };
  const merged = mergeConfigLayers(found.map((file) => file.config).reverse());
  return fromText('', found.map(fileName), { value: merged, source: found.map(fileName).join(', ') });
};
