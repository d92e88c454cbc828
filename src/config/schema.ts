// The `.github/arbiter.yml` schema: every key with its default, description and example (the
// source of docs/configuration.md). Unknown keys are errors (strict objects), so a typo never
// passes silently. `ArbiterConfig` is the normalised type.
import { z } from 'zod';
import { seconds } from './schema-primitives.ts';
import { AcceptanceSection, GateSection, JudgeSection } from './schema-evidence.ts';
import { PolicySection } from './schema-policy.ts';
import { CompositeSection } from './schema-composite.ts';
import { PortfolioSection } from './schema-portfolio.ts';
import { TrustSection } from './schema-trust.ts';

export { GATEKEEPER_PATHS, RiskRule } from './schema-policy.ts';
export { RubricCriterion } from './schema-evidence.ts';

export const ConfigSchema = z.strictObject({
  mode: z
    .enum(['live', 'shadow'])
    .default('live')
    .meta({
      description:
        '`live` acts on pull requests. `shadow` computes and comments its decision but changes no pull request (no close, label, review request or merge): the safe way to try Arbiter.',
      examples: ['shadow'],
    }),
  gate: GateSection,
  acceptance: AcceptanceSection,
  judge: JudgeSection,
  selection: z
    .strictObject({
      siblingTimeout: seconds.default(7200).meta({
        description:
          'Seconds after which a sibling whose checks never finish is settled as unpromotable ("timed out"), so the round can be decided. A sibling whose agent is still at work (its title starts with `[WIP]`, `WIP:` or `Draft:`) holds the round this long after its latest push, then the round goes on without it (it is neither ranked nor closed while it works). GitHub Actions runs that wait for a maintainer\'s approval are never timed out: they wait for that person.',
        examples: [3600],
      }),
      label: z
        .string()
        .nullable()
        .default(null)
        .meta({
          description:
            'A pull request that is not a draft is still recorded as a candidate when it carries this label, added by a trusted account (a label added by anyone else does not count). null: drafts only.',
          examples: ['arbiter:candidate'],
        }),
    })
    .prefault({})
    .meta({ description: 'How candidates are recorded and when a round is decided.' }),
  policy: PolicySection,
  repair: z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .meta({
          description:
            'Whether Arbiter asks for one repair attempt (a `repository_dispatch` of type `arbiter.repair` and a comment on the Change) before handing the Change to a person. At most one per Change.',
          examples: [false],
        }),
      timeout: seconds.default(3600).meta({
        description: 'Seconds to wait for the repair to arrive before the Change goes to a person.',
        examples: [1800],
      }),
    })
    .prefault({})
    .meta({ description: 'One more attempt, asked for before a person decides.' }),
  combine: z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .meta({
          description:
            'Whether Arbiter builds one combined candidate when no promotable candidate meets every criterion but the best one and another together meet more: a branch at the base head, both heads merged into it by the API, and a draft pull request opened from it as a sibling. At most one per Change; it comes before a repair. A parent whose head moves before the combined pull request is decided is merged into it again (a conflict closes it, and the parents are compared alone); the parents close as combined into it only once it merged.',
          examples: [false],
        }),
      branchPrefix: z
        .string()
        .regex(
          /^(?!\/)(?!.*\.\.)[A-Za-z0-9._/-]+$/,
          'letters, digits, `.`, `_`, `-` and `/` only, not starting with `/` and without `..`',
        )
        .default('arbiter/combined/')
        .meta({
          description: "The combined candidate's branch is this prefix followed by the Change number.",
          examples: ['bots/combined-'],
        }),
    })
    .prefault({})
    .meta({
      description:
        'The combined candidate: when two siblings each do part of the job, Arbiter builds the one that does both.',
    }),
  composite: CompositeSection,
  portfolio: PortfolioSection,
  trust: TrustSection,
  commands: z
    .strictObject({
      prefix: z
        .string()
        .regex(/^\/[a-z][a-z0-9-]*$/)
        .default('/arbiter')
        .meta({ description: 'The slash-command prefix, as in `/arbiter promote`.', examples: ['/bot'] }),
    })
    .prefault({})
    .meta({ description: 'Slash commands in comments.' }),
  dashboard: z
    .boolean()
    .default(true)
    .meta({
      description:
        'One issue titled "Arbiter dashboard", opened by Arbiter on the first Change and kept up to date in place (at most once a minute): the Changes waiting for a person with the action each needs, the open rounds and what each waits for, and the last 20 decisions. In shadow mode too (it is the only issue Arbiter writes). `false`: no dashboard.',
      examples: [false],
    }),
});

export type ArbiterConfig = z.infer<typeof ConfigSchema>;

export const defaultConfig = (): ArbiterConfig => ConfigSchema.parse({});
