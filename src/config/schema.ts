// The `.github/arbiter.yml` schema: every key with its default. Unknown keys are errors
// (strict objects), so a typo never passes silently. `ArbiterConfig` is the normalised type.
import { z } from 'zod';

const seconds = z.number().int().positive();
const globs = z.array(z.string().min(1));

export const RiskRule = z.strictObject({
  risk: z.enum(['low', 'medium', 'high']),
  /** Any changed path matching one of these globs. */
  paths: globs.optional(),
  /** More changed lines (additions + deletions) than this. */
  minChangedLines: z.number().int().nonnegative().optional(),
  /** More changed files than this. */
  minChangedFiles: z.number().int().nonnegative().optional(),
  /** Any of these labels on the candidate. */
  labels: z.array(z.string()).optional(),
});
export type RiskRule = z.infer<typeof RiskRule>;

export const RubricCriterion = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, 'lower-case id of at most 40 characters'),
  description: z.string().min(1),
  weight: z.number().positive().default(1),
});

export const ConfigSchema = z.strictObject({
  /** `live` acts; `shadow` computes and comments its decision but changes no PR state. */
  mode: z.enum(['live', 'shadow']).default('live'),
  gate: z
    .strictObject({
      /** Required check names or globs; empty: the branch rules, else every check suite. */
      required: globs.default([]),
      /** A scoring check: the first number after `score:`/`score=` in its title, else summary. */
      score: z.string().nullable().default(null),
    })
    .prefault({}),
  acceptance: z
    .strictObject({
      /** When false, a Change with no criteria may ship without a person. */
      required: z.boolean().default(true),
      alwaysInclude: globs.default([]),
      maxFiles: z.number().int().min(1).max(200).default(24),
      maxBytes: z.number().int().min(1024).max(1_000_000).default(61_440),
      models: z
        .strictObject({ small: z.string().default('claude-haiku-5-5'), large: z.string().default('claude-sonnet-5-5') })
        .prefault({}),
      timeoutSeconds: seconds.default(90),
      maxOutputTokens: z.number().int().min(256).max(32_000).default(4096),
      budget: z
        .strictObject({
          perChange: z.number().int().nonnegative().default(40),
          dailyPerInstallation: z.number().int().nonnegative().default(1000),
        })
        .prefault({}),
    })
    .prefault({}),
  judge: z
    .strictObject({
      mode: z.enum(['verdict', 'rubric']).default('verdict'),
      model: z.string().default('claude-sonnet-5-5'),
      timeoutSeconds: seconds.default(120),
      rubric: z
        .array(RubricCriterion)
        .default([
          { id: 'completeness', description: 'How completely the evidence shows the request carried out', weight: 2 },
          { id: 'risk', description: 'How little risk the evidence suggests (fewer failing or flaky checks)', weight: 1 },
        ]),
    })
    .prefault({}),
  selection: z
    .strictObject({
      /** Seconds after which a sibling whose checks never finish is settled as timed out. */
      siblingTimeout: seconds.default(7200),
      /** A PR that is not a draft is still recorded when it carries this label. */
      label: z.string().nullable().default(null),
    })
    .prefault({}),
  policy: z
    .strictObject({
      mergeMethod: z.enum(['merge', 'squash', 'rebase']).default('squash'),
      /** Risks that may ship without a person. */
      autoShip: z.array(z.enum(['low', 'medium', 'high'])).default(['low', 'medium']),
      /** Rules are checked in order; the highest risk any rule gives wins. Default: low. */
      rules: z
        .array(RiskRule)
        .default([
          { risk: 'high', paths: ['.github/workflows/**'] },
          { risk: 'medium', minChangedLines: 400 },
        ]),
      /** Reviewers asked at the human gate; empty: CODEOWNERS of the changed files. */
      reviewers: z.array(z.string()).default([]),
    })
    .prefault({}),
  repair: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Seconds to wait for a repair before the Change goes to a person. */
      timeout: seconds.default(3600),
    })
    .prefault({}),
  portfolio: z
    .strictObject({
      approaches: z.array(z.string().min(1)).default([]),
      composeTimeout: seconds.default(3600),
      policy: z.enum(['top-k', 'successive-halving']).default('top-k'),
      k: z.number().int().min(1).default(2),
    })
    .prefault({}),
  commands: z.strictObject({ prefix: z.string().regex(/^\/[a-z][a-z0-9-]*$/).default('/arbiter') }).prefault({}),
});

export type ArbiterConfig = z.infer<typeof ConfigSchema>;

export const defaultConfig = (): ArbiterConfig => ConfigSchema.parse({});
