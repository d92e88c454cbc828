// The `.github/arbiter.yml` schema: every key with its default, description and example (the
// source of docs/configuration.md). Unknown keys are errors (strict objects), so a typo never
// passes silently. `ArbiterConfig` is the normalised type.
import { z } from 'zod';

const seconds = z.number().int().positive();
const globs = z.array(z.string().min(1));

/** The gatekeeper's own files: a change to any of them is high risk by default. */
export const GATEKEEPER_PATHS = ['.github/arbiter.yml', '**/CODEOWNERS', '.github/workflows/**', '.github/actions/**'] as const;

export const RiskRule = z.strictObject({
  risk: z.enum(['low', 'medium', 'high']).meta({ description: 'The risk this rule gives when it matches.', examples: ['high'] }),
  paths: globs.optional().meta({ description: 'Matches when any changed path matches one of these globs.', examples: [['infra/**']] }),
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

export const RubricCriterion = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'lower-case id of at most 40 characters')
    .meta({ description: 'Lower-case id (letters, digits, `-`, `_`; at most 40 characters), unique in the rubric.', examples: ['tests'] }),
  description: z.string().min(1).meta({ description: 'What the judge scores, in one sentence.', examples: ['How well the evidence shows the change is tested'] }),
  weight: z.number().positive().default(1).meta({ description: 'Weight of this criterion in the total score.', examples: [1] }),
});

/** Portfolio approaches must differ: N identical prompts are not a portfolio. The issue names the repeat's line. */
function distinctApproaches(list: string[], ctx: z.core.$RefinementCtx<string[]>): void {
  const first = new Map<string, number>();
  list.forEach((approach, i) => {
    const key = approach.trim().toLowerCase();
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else ctx.addIssue({ code: 'custom', path: [i], message: `duplicate approach (same as portfolio.approaches[${earlier}]): each approach must be distinct` });
  });
}

export const ConfigSchema = z.strictObject({
  mode: z
    .enum(['live', 'shadow'])
    .default('live')
    .meta({
      description:
        '`live` acts on pull requests. `shadow` computes and comments its decision but changes no pull request (no close, label, review request or merge): the safe way to try Arbiter.',
      examples: ['shadow'],
    }),
  gate: z
    .strictObject({
      required: globs.default([]).meta({
        description:
          "Required check names or globs (check runs and commit statuses) on a candidate's head. Empty: the branch's required checks; with none, every check suite on the head must complete. A required name fails when any check run or status of that name failed (the latest report of each app counts; a pass elsewhere never hides a failure), and a failed required check makes a candidate unpromotable. `name@app` pins the app that must report it (`test@github-actions`): only that app's check runs count for it. A required check that has not appeared yet is waited for until `selection.siblingTimeout`. Arbiter's own checks never count.",
        examples: [['test@github-actions', 'ci/*']],
      }),
      allowNoChecks: z.boolean().default(false).meta({
        description:
          'When false, a head on which no check at all has reported is not promotable ("no checks reported yet") and is waited for until `selection.siblingTimeout`, since CI may register late. true: a head with no checks may ship.',
        examples: [true],
      }),
      score: z.string().nullable().default(null).meta({
        description:
          'A scoring check: the first number after `score:` or `score=` in its output title, else in its summary, ranks candidates that are otherwise equal (higher is better). null: no score.',
        examples: ['bench'],
      }),
    })
    .prefault({})
    .meta({ description: "Which checks on a candidate's head are its gate evidence." }),
  acceptance: z
    .strictObject({
      required: z.boolean().default(true).meta({
        description:
          'When false, a Change with no acceptance criteria may ship without a person. When true, such a Change goes to the human gate.',
        examples: [false],
      }),
      alwaysInclude: globs.default([]).meta({
        description:
          "Files always sent to the model with the candidate's changed files (entry points), together with the files they reference. Globs.",
        examples: [['public/index.html', 'src/app.ts']],
      }),
      maxFiles: z.number().int().min(1).max(200).default(24).meta({
        description: 'At most this many files are sent to the model (1 to 200).',
        examples: [12],
      }),
      maxBytes: z.number().int().min(1024).max(1_000_000).default(61_440).meta({
        description: 'At most this many bytes of patch and file text in total (1024 to 1000000); a cut file or patch is marked truncated.',
        examples: [40_960],
      }),
      models: z
        .strictObject({
          small: z.string().default('claude-haiku-5-5').meta({
            description: 'The small model: one call judges every criterion.',
            examples: ['claude-haiku-5-5'],
          }),
          large: z.string().default('claude-sonnet-5-5').meta({
            description: "The large model: called only when the small model's answer is invalid or leaves criteria unclear.",
            examples: ['claude-sonnet-5-5'],
          }),
        })
        .prefault({})
        .meta({ description: 'Model ids of the acceptance check.' }),
      timeoutSeconds: seconds.default(90).meta({
        description: 'Seconds before a model call is abandoned; its criteria become gaps.',
        examples: [60],
      }),
      maxOutputTokens: z.number().int().min(256).max(32_000).default(4096).meta({
        description: 'Output token limit of each acceptance call (256 to 32000); an answer cut by it is a gap, never a guess.',
        examples: [8192],
      }),
      budget: z
        .strictObject({
          perChange: z.number().int().nonnegative().default(40).meta({
            description: 'At most this many model calls for one Change, over all its candidates and rounds; beyond it criteria are gaps, and a sibling left with gaps that could rank first once judged sends the Change to a person rather than losing. Allow about one call per candidate, plus re-runs.',
            examples: [20],
          }),
          dailyPerInstallation: z.number().int().nonnegative().default(1000).meta({
            description: 'At most this many model calls per installation per day.',
            examples: [500],
          }),
        })
        .prefault({})
        .meta({ description: 'Cost control of acceptance model calls.' }),
    })
    .prefault({})
    .meta({
      description:
        "The acceptance check: a model judges each acceptance criterion of the Change against the candidate; a `met` counts only with a quote that Arbiter verifies in the material this candidate's call received. The citation rule: the quote must occur there word for word (whitespace aside) in the cited file, and be specific: a whole line of at least 8 characters that occurs once, or a non-trivial excerpt (not a brace, a lone keyword or a literal) that occurs at most 3 times. A quote only inside a comment, or in a prose file (`*.md`, `*.txt`, `docs/`, README, NOTES), verifies only a criterion about documentation; a quote that restates the criterion's own words verifies nothing; a removed line verifies only a criterion that asks for a removal and that the model classified as one. A refused quote makes the criterion `unclear`, with the reason. `(check: NAME)` criteria are judged by that check, again each time it concludes. See docs/acceptance.md.",
    }),
  judge: z
    .strictObject({
      mode: z.enum(['verdict', 'rubric']).default('verdict').meta({
        description:
          '`verdict`: the judge names the preferred tied candidate and the evidence ids it relies on. `rubric`: the model scores every tied candidate on each rubric criterion (0 to 4) and the weighted total decides. Either way the judge is asked twice, with the tied candidates in opposite orders: a verdict counts only when both answers prefer the same candidate, rubric scores are averaged; answers that disagree go to a person (`comparison: inconsistent`). Both calls count against the budget.',
        examples: ['rubric'],
      }),
      model: z.string().default('claude-sonnet-5-5').meta({ description: 'Model id of the judge.', examples: ['claude-sonnet-5-5'] }),
      timeoutSeconds: seconds.default(120).meta({
        description: 'Seconds before the judge call is abandoned; the tie then goes to a person.',
        examples: [60],
      }),
      rubric: z
        .array(RubricCriterion)
        .default([
          { id: 'completeness', description: 'How completely the evidence shows the request carried out', weight: 2 },
          { id: 'risk', description: 'How little risk the evidence suggests (fewer failing or flaky checks)', weight: 1 },
        ])
        .meta({
          description: 'The rubric of `mode: rubric`. A list replaces the default list whole.',
          examples: [
            [
              { id: 'completeness', description: 'How completely the evidence shows the request carried out', weight: 3 },
              { id: 'tests', description: 'How well the evidence shows the change is tested', weight: 1 },
            ],
          ],
        }),
    })
    .prefault({})
    .meta({ description: 'The tie-break judge: runs only when ranking ends in a tie at the top, and reads only the evidence, never the code.' }),
  selection: z
    .strictObject({
      siblingTimeout: seconds.default(7200).meta({
        description: 'Seconds after which a sibling whose checks never finish is settled as unpromotable ("timed out"), so the round can be decided.',
        examples: [3600],
      }),
      label: z.string().nullable().default(null).meta({
        description: 'A pull request that is not a draft is still recorded as a candidate when it carries this label, added by a trusted account (a label added by anyone else does not count). null: drafts only.',
        examples: ['arbiter:candidate'],
      }),
    })
    .prefault({})
    .meta({ description: 'How candidates are recorded and when a round is decided.' }),
  policy: z
    .strictObject({
      mergeMethod: z.enum(['merge', 'squash', 'rebase']).default('squash').meta({
        description: 'How the winner is merged.',
        examples: ['rebase'],
      }),
      autoShip: z
        .array(z.enum(['low', 'medium', 'high']))
        .default(['low', 'medium'])
        .meta({ description: 'Risks that may ship without a person; a winner of any other risk goes to the human gate.', examples: [['low']] }),
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
      reviewers: z.array(z.string()).default([]).meta({
        description: 'GitHub logins asked for review at the human gate. Empty: the CODEOWNERS of the changed files.',
        examples: [['octocat']],
      }),
    })
    .prefault({})
    .meta({ description: 'The risk policy under which the winner ships.' }),
  repair: z
    .strictObject({
      enabled: z.boolean().default(true).meta({
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
      enabled: z.boolean().default(true).meta({
        description:
          'Whether Arbiter builds one combined candidate when no promotable candidate meets every criterion but the best one and another together meet more: a branch at the base head, both heads merged into it by the API, and a draft pull request opened from it as a sibling. At most one per Change; it comes before a repair.',
        examples: [false],
      }),
      branchPrefix: z
        .string()
        .regex(/^(?!\/)(?!.*\.\.)[A-Za-z0-9._/-]+$/, 'letters, digits, `.`, `_`, `-` and `/` only, not starting with `/` and without `..`')
        .default('arbiter/combined/')
        .meta({
          description: 'The combined candidate\'s branch is this prefix followed by the Change number.',
          examples: ['bots/combined-'],
        }),
    })
    .prefault({})
    .meta({ description: 'The combined candidate: when two siblings each do part of the job, Arbiter builds the one that does both.' }),
  portfolio: z
    .strictObject({
      approaches: z
        .array(z.string().min(1).max(1000))
        .max(50)
        .superRefine(distinctApproaches)
        .default([])
        .meta({
          description:
            'Distinct approaches, one per candidate dispatched by `/arbiter explore N` (sent to the agent as `approach`). Required for explore: nothing is generated. The same approach twice is an error.',
          examples: [['Keep state in the URL', 'Keep state in local storage']],
        }),
      composeTimeout: seconds.default(3600).meta({
        description: 'Seconds a dispatched candidate may take to open its pull request before it is dropped.',
        examples: [1800],
      }),
      policy: z.enum(['top-k', 'successive-halving']).default('top-k').meta({
        description:
          '`top-k` takes the k best by score to the deep round; `successive-halving` re-runs the scoring check on the survivors and averages, so one noisy reading does not pick the winner.',
        examples: ['successive-halving'],
      }),
      k: z.number().int().min(1).default(2).meta({ description: 'How many candidates go on to the deep round.', examples: [3] }),
      maxDispatches: z.number().int().min(1).max(1000).default(20).meta({
        description:
          'The most agent dispatches (`arbiter.candidate.requested` and `arbiter.candidate.refine`) one Change may cost across all its explores; an explore that would exceed it is refused.',
        examples: [12],
      }),
    })
    .prefault({})
    .meta({ description: 'Portfolio search: explore several approaches, then exploit the best (`/arbiter explore`).' }),
  trust: z
    .strictObject({
      agents: z.array(z.string().min(1)).default([]).meta({
        description:
          "Exact logins of the team's coding agents, trusted like a user with write access: their linked pull requests are candidates and their issues Changes. Everyone else needs write, maintain or admin permission on the repository (or a maintainer's `/arbiter admit` or `/arbiter track`).",
        examples: [['copilot-swe-agent[bot]', 'my-agents[bot]']],
      }),
      changeLabel: z.string().min(1).nullable().default('arbiter:change').meta({
        description:
          'An issue opened by an account without write access becomes a Change when a trusted account adds this label (as `/arbiter track` does). null: only `/arbiter track` adopts an issue.',
        examples: ['arbiter:change'],
      }),
    })
    .prefault({})
    .meta({
      description:
        'Who Arbiter acts for: only accounts that could merge the code themselves (write, maintain or admin), the agents listed here, and Arbiter itself.',
    }),
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
