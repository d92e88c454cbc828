// The evidence sections of the `.github/arbiter.yml` schema: `gate` (checks), `acceptance` (the
// model-judged criteria) and `judge` (the tie-break), composed into ConfigSchema by schema.ts.
import { z } from 'zod';
import { globs, seconds } from './schema-primitives.ts';

export const RubricCriterion = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'lower-case id of at most 40 characters')
    .meta({
      description: 'Lower-case id (letters, digits, `-`, `_`; at most 40 characters), unique in the rubric.',
      examples: ['tests'],
    }),
  description: z
    .string()
    .min(1)
    .meta({
      description: 'What the judge scores, in one sentence.',
      examples: ['How well the evidence shows the change is tested'],
    }),
  weight: z
    .number()
    .positive()
    .default(1)
    .meta({ description: 'Weight of this criterion in the total score.', examples: [1] }),
});

export const GateSection = z
  .strictObject({
    required: globs.default([]).meta({
      description:
        "Required check names or globs (check runs and commit statuses) on a candidate's head. Empty: the branch's required checks; with none, every check suite on the head must complete. A required name fails when any check run or status of that name failed (the latest report of each app counts; a pass elsewhere never hides a failure), and a failed required check makes a candidate unpromotable. `name@app` pins the app that must report it (`test@github-actions`): only that app's check runs count for it. A required check that has not appeared yet is waited for until `selection.siblingTimeout`. Arbiter's own checks never count.",
      examples: [['test@github-actions', 'ci/*']],
    }),
    allowNoChecks: z
      .boolean()
      .default(false)
      .meta({
        description:
          'When false, a head on which no check at all has reported is not promotable ("no checks reported yet") and is waited for until `selection.siblingTimeout`, since CI may register late. true: a head with no checks may ship.',
        examples: [true],
      }),
    score: z
      .string()
      .nullable()
      .default(null)
      .meta({
        description:
          'A scoring check: the first number after `score:` or `score=` in its output title, else in its summary, ranks candidates that are otherwise equal (higher is better). null: no score.',
        examples: ['bench'],
      }),
  })
  .prefault({})
  .meta({ description: "Which checks on a candidate's head are its gate evidence." });

export const AcceptanceSection = z
  .strictObject({
    required: z
      .boolean()
      .default(true)
      .meta({
        description:
          'When false, a Change with no acceptance criteria may ship without a person. When true, such a Change goes to the human gate.',
        examples: [false],
      }),
    alwaysInclude: globs.default([]).meta({
      description:
        "Files always sent to the model with the candidate's changed files (entry points), together with the files they reference. Globs.",
      examples: [['public/index.html', 'src/app.ts']],
    }),
    maxFiles: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(24)
      .meta({
        description: 'At most this many files are sent to the model (1 to 200).',
        examples: [12],
      }),
    maxBytes: z
      .number()
      .int()
      .min(1024)
      .max(1_000_000)
      .default(61_440)
      .meta({
        description:
          'At most this many bytes of patch and file text in total (1024 to 1000000); a cut file or patch is marked truncated.',
        examples: [40_960],
      }),
    models: z
      .strictObject({
        small: z
          .string()
          .default('claude-haiku-5-5')
          .meta({
            description: 'The small model: one call judges every criterion.',
            examples: ['claude-haiku-5-5'],
          }),
        large: z
          .string()
          .default('claude-sonnet-5-5')
          .meta({
            description:
              "The large model: called only when the small model's answer is invalid or leaves criteria unclear.",
            examples: ['claude-sonnet-5-5'],
          }),
      })
      .prefault({})
      .meta({ description: 'Model ids of the acceptance check.' }),
    timeoutSeconds: seconds.default(90).meta({
      description: 'Seconds before a model call is abandoned; its criteria are not judged.',
      examples: [60],
    }),
    maxOutputTokens: z
      .number()
      .int()
      .min(256)
      .max(32_000)
      .default(4096)
      .meta({
        description:
          'Output token limit of each acceptance call (256 to 32000); an answer cut by it leaves its criteria not judged, never guessed.',
        examples: [8192],
      }),
    budget: z
      .strictObject({
        perChange: z
          .number()
          .int()
          .nonnegative()
          .default(40)
          .meta({
            description:
              'At most this many model calls for one Change, over all its candidates and rounds; beyond it criteria are not judged, and a sibling whose criteria not judged could rank it first once judged sends the Change to a person rather than losing. Allow about one call per candidate, plus re-runs.',
            examples: [20],
          }),
        dailyPerInstallation: z
          .number()
          .int()
          .nonnegative()
          .default(1000)
          .meta({
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
      "The acceptance check: a model judges each acceptance criterion of the Change against the candidate; a `met` counts only with a quote that Arbiter verifies in the material this candidate's call received. The citation rule: the quote must occur there word for word (whitespace aside) in the cited file, and be specific: a whole line of at least 8 characters that occurs once, or a non-trivial excerpt (not a brace, a lone keyword or a literal) that occurs at most 3 times. A quote only inside a comment, or in a documentation file (`*.md`, `*.txt`, `*.rst`, README, NOTES without a code extension; never a source file such as `src/todo.ts` or `docs/app.js`), verifies only a criterion about documentation; a quote whose text restates the criterion (a log line, message, constant, table row, i18n entry or test name) verifies nothing unless its code shares the criterion's words (`list.sort(byPriority)` counts); a removed line verifies only a criterion that asks for a removal and that the model classified as one. A refused quote makes the criterion `unclear`, with the reason. `(check: NAME)` criteria are judged by that check, again each time it concludes. See docs/acceptance.md.",
  });

export const JudgeSection = z
  .strictObject({
    mode: z
      .enum(['verdict', 'rubric'])
      .default('verdict')
      .meta({
        description:
          '`verdict`: the judge names the preferred tied candidate and the evidence ids it relies on. `rubric`: the model scores every tied candidate on each rubric criterion (0 to 4) and the weighted total decides. Either way the judge is asked twice, with the tied candidates in opposite orders: a verdict counts only when both answers prefer the same candidate, rubric scores are averaged; answers that disagree go to a person (`comparison: inconsistent`). Both calls count against the budget.',
        examples: ['rubric'],
      }),
    model: z
      .string()
      .default('claude-sonnet-5-5')
      .meta({ description: 'Model id of the judge.', examples: ['claude-sonnet-5-5'] }),
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
  .meta({
    description:
      'The tie-break judge: runs only when ranking ends in a tie at the top, and reads only the evidence, never the code.',
  });
