// Where a plan's words learn the configured mode (issue 26 item 2): a planner writes what live mode
// says and what shadow mode says ("would"), hands over the config, and this chooses. Only words come
// out, so no planner plans other actions in shadow mode: what shadow mode does is the filter's alone
// (`forMode`, src/core/shadow.ts).
import type { ArbiterConfig } from '../../config/schema.ts';

/** The configured mode, as a renderer reads it: a planner passes the config on, never reads its mode. */
export type ModeConfig = Pick<ArbiterConfig, 'mode'>;

/** The words of the configured mode: live mode's, or shadow mode's. */
export const inMode = (config: ModeConfig, words: { live: string; shadow: string }): string =>
  config.mode === 'shadow' ? words.shadow : words.live;

/** The `Arbiter / config` check's line on the mode: which one, and what Arbiter does in it. */
export const modeLine = (config: ModeConfig): string =>
  inMode(config, {
    live: 'Mode: `live`: Arbiter acts on pull requests.',
    shadow:
      'Mode: `shadow`: Arbiter compares the candidates and says in its comments and checks what it would do; it changes no pull request.',
  });
