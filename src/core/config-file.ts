// Where a repository keeps Arbiter's configuration, named once: the config room reads and reports
// on it, the GitHub room fetches it, and the handlers watch pushes and pull requests that touch it.

export const CONFIG_PATH = '.github/arbiter.yml';
