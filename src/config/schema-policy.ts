// The risk policy section of the `.github/arbiter.yml` schema (`policy`: risk rules, auto-ship and
// merge method), composed into ConfigSchema by schema.ts.
import { z } from 'zod';
import { CONFIG_PATH } from '../core/config-file.ts';
import { globs } from './schema-primitives.ts';

/** The gatekeeper's own files: a change to any of them is high risk by default. */
export const GATEKEEPER_PATHS = [CONFIG_PATH, '**/CODEOWNERS', '.github/workflows/**', '.github/actions/**'] as const;

export const RiskRule = z.strictObject({
  risk: z
    .enum(['low', 'medium', 'high'])
    .meta({ description: 'The risk this rule gives when it matches.', examples: ['high'] }),
  paths: globs
    .optional()
    .meta({ description: 'Matches when any changed path matches one of these globs.', examples: [['infra/**']] }),
  minChangedLines: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .meta({ description: 'Matches when more lines than this changed (additions + deletions).', examples: [400] }),
  minChangedFiles: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .meta({ description: 'Matches when more files than this changed.', examples: [30] }),
  labels: z
    .array(z.string())
    .optional()
    .meta({ description: 'Matches when the candidate carries any of these labels.', examples: [['security']] }),
});
export type RiskRule = z.infer<typeof RiskRule>;

export const PolicySection = z
  .strictObject({
    mergeMethod: z
      .enum(['merge', 'squash', 'rebase'])
      .default('squash')
      .meta({
        description: 'How the winner is merged.',
        examples: ['rebase'],
      }),
    autoShip: z
      .array(z.enum(['low', 'medium', 'high']))
      .default(['low', 'medium'])
      .meta({
        description: 'Risks that may ship without a person; a winner of any other risk goes to the human gate.',
        examples: [['low']],
      }),
    rules: z
      .array(RiskRule)
      .default([
        { risk: 'high', paths: [...GATEKEEPER_PATHS] },
        { risk: 'medium', minChangedLines: 400 },
      ])
      .meta({
        description:
          "Risk rules, checked in order; the highest risk of any matching rule wins, and a candidate no rule matches is low risk. By default a change to the gatekeeper's own files (`.github/arbiter.yml`, any `CODEOWNERS`, `.github/workflows/**`, `.github/actions/**`) is high risk. A list replaces the default list whole, so keep that rule in yours.",
        examples: [
          [
            { risk: 'high', paths: ['.github/workflows/**', 'infra/**'] },
            { risk: 'high', labels: ['security'] },
            { risk: 'medium', minChangedLines: 400 },
            { risk: 'medium', minChangedFiles: 30 },
          ],
        ],
      }),
    reviewers: z
      .array(z.string())
      .default([])
      .meta({
        description: 'GitHub logins asked for review at the human gate. Empty: the CODEOWNERS of the changed files.',
        examples: [['octocat']],
      }),
  })
  .prefault({})
  .meta({ description: 'The risk policy under which the winner ships.' });
