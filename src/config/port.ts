// What the configuration asks of GitHub, as an interface the config room owns: the file's text,
// the layers Probot's config plugin resolves, the `Arbiter / config` check runs and a branch's head.
// Implemented in src/github/config-reads.ts (every failure a GitHubError) and by the test fake.

export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure';
  title: string;
  message: string;
}

export interface RepoRef {
  owner: string;
  repo: string;
  /** Branch, tag or sha; the default branch when omitted. */
  ref?: string;
}

export type ConfigLayers = { ok: true; files: unknown } | { ok: false; message: string };

/** The body of a `Arbiter / config` check run (created or updated). */
export interface ConfigRunBody {
  name: string;
  status: 'completed';
  conclusion: 'success' | 'failure';
  completed_at: string;
  output: { title: string; summary: string; annotations?: CheckAnnotation[] };
}

/** What the configuration asks of GitHub (installation-wide: `_extends` may name other repositories). */
export interface ConfigPort {
  /** The repository file's text at a ref, or null when it does not exist; `'not a file'` for a folder or submodule. */
  readConfigText(target: RepoRef): Promise<string | null | 'not a file'>;
  /** Probot's config plugin; a content problem (bad YAML, bad `_extends`) is `{ ok: false }`, not an error. */
  readConfigLayers(target: RepoRef): Promise<ConfigLayers>;
  /** GitHub's list of check runs of that name on a sha (unparsed). */
  listCheckRunsNamed(target: { owner: string; repo: string; sha: string; name: string }): Promise<unknown>;
  createConfigRun(target: { owner: string; repo: string; sha: string }, body: ConfigRunBody): Promise<void>;
  updateConfigRun(target: { owner: string; repo: string; id: number }, body: ConfigRunBody): Promise<void>;
  /** The repository's default branch. */
  defaultBranch(target: { owner: string; repo: string }): Promise<string>;
  /** The sha a branch points at. */
  branchHead(target: { owner: string; repo: string; branch: string }): Promise<string>;
}
