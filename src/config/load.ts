// Reads `.github/arbiter.yml` of a repository at a ref: the raw text (for line numbers) and,
// when the file is missing or uses `_extends`, the layers Probot's config plugin resolves.
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { ConfigPort, RepoRef } from './port.ts';
import { CONFIG_PATH } from '../core/config-file.ts';
import { ConfigGitHubError, type ConfigError } from './errors.ts';
import { isPlainObject, mergeConfigLayers } from './merge.ts';
import { EXTENDS_KEY, parseConfigText } from './parse.ts';
import { locatePath } from './yaml-lines.ts';
import { defaultConfig, type ArbiterConfig } from './schema.ts';

export type { RepoRef };

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

const PluginFile = z.object({
  owner: z.string(),
  repo: z.string(),
  path: z.string(),
  config: z.record(z.string(), z.unknown()).nullable(),
});
type PluginFile = z.infer<typeof PluginFile>;

const fileName = (file: { owner: string; repo: string; path: string }): string =>
  `${file.owner}/${file.repo}:${file.path}`;

/** The raw text of the repository's own file, or null when it does not exist. */
const readConfigText = async (gh: ConfigPort, target: RepoRef): Promise<string | null> => {
  const text = await gh.readConfigText(target);
  if (text === 'not a file')
    throw new ConfigGitHubError(`${CONFIG_PATH} in ${target.owner}/${target.repo} is not a file`, null);
  return text;
};

/** Probot's config plugin: the repository file, the organisation `.github` fallback, `_extends` bases. */
const readConfigLayers = async (
  gh: ConfigPort,
  target: RepoRef,
): Promise<{ ok: true; files: PluginFile[] } | { ok: false; message: string }> => {
  const layers = await gh.readConfigLayers(target);
  if (!layers.ok) return layers;
  const parsed = z.array(PluginFile).safeParse(layers.files);
  if (!parsed.success) return { ok: false, message: 'a configuration file is not a mapping of settings' };
  return { ok: true, files: parsed.data };
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
  return result.ok
    ? { ok: true, config: result.config, source: 'file', files }
    : { ok: false, errors: result.errors, text };
};

/** The configuration at a ref. GitHub failing is a GitHubError (from the port). */
export const loadRepoConfig = async (gh: ConfigPort, target: RepoRef): Promise<LoadConfigResult> => {
  const own = { owner: target.owner, repo: target.repo, path: CONFIG_PATH };
  const text = await readConfigText(gh, target);
  // The common case needs one request; a YAML error is reported from our own parse, with its line.
  if (text !== null && !usesExtends(text)) return fromText(text, [fileName(own)]);

  const layers = await readConfigLayers(gh, target);
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
    return fromText(text, [fileName(own), ...bases.map(fileName)], {
      value: base,
      source: bases.map(fileName).join(', '),
    });
  }

  // No file in the repository: the organisation's `.github` repository may hold one.
  const found = bases.filter((file) => file.config !== null);
  if (found.length === 0) return { ok: true, config: defaultConfig(), source: 'default', files: [] };
  const merged = mergeConfigLayers(found.map((file) => file.config).reverse());
  return fromText('', found.map(fileName), { value: merged, source: found.map(fileName).join(', ') });
};
