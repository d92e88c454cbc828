// Runs one slash command or check-run button click: ignore bots' comments, parse, check permission
// first, then where the verb applies and its arguments, then call the verb and answer with its result.
// A service that throws is not caught here: the job that called us retries (replies are idempotent).
import { SELECTION_BUTTONS, verbForButton } from './buttons.ts';
import { parseCommand } from './parse.ts';
import { looksLikeBot, mayRun } from './permissions.ts';
import { VERBS, findVerb } from './registry.ts';
import { renderHelp } from './verbs/help.ts';
import type { CandidateInfo, CommandServices, CommandTarget, VerbModule, VerbWhere } from './types.ts';

export type CommandOutcome = 'refused' | 'done' | 'failed' | 'help';
export interface CommandRun {
  handled: boolean;
  verb?: string;
  outcome?: CommandOutcome;
}

interface Refusal {
  code: string;
  message: string;
}

/** The longest command line quoted back; a 1 MB line is not echoed. */
const MAX_QUOTE = 200;

const quote = (line: string): string => `> ${line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line}`;

type CandidateLookup = () => Promise<CandidateInfo | null>;

/** Fetches the candidate at most once per command, and only when a rule needs it. */
function lookupCandidate(t: CommandTarget, services: CommandServices): CandidateLookup {
  let pending: Promise<CandidateInfo | null> | null = null;
  return () => {
    if (!t.isPullRequest) return Promise.resolve(null);
    pending ??= services.candidate(t.issueNumber);
    return pending;
  };
}

const notCandidate = (t: CommandTarget, verb: string): Refusal => ({
  code: 'not_a_candidate',
  message: `#${t.issueNumber} is not a candidate (a draft pull request linking a Change), so \`${verb}\` does not apply here.`,
});
const notChange = (t: CommandTarget, verb: string): Refusal => ({
  code: 'not_a_change',
  message: `#${t.issueNumber} is not a Change Arbiter tracks, so \`${verb}\` does not apply here; use it on the Change issue.`,
});

type WhereCheck = (
  t: CommandTarget,
  verb: string,
  candidate: CandidateLookup,
  services: CommandServices,
) => Promise<Refusal | null>;

/** Where each kind of verb applies; the table is the rule. */
const WHERE: Record<VerbWhere, WhereCheck> = {
  anywhere: async () => null,
  candidate: async (t, verb, candidate) => ((await candidate()) ? null : notCandidate(t, verb)),
  change: async (t, verb, _c, services) =>
    !t.isPullRequest && (await services.isChange(t.issueNumber)) ? null : notChange(t, verb),
  issue: async (t, verb, _c, services) =>
    !t.isPullRequest && (await services.changeIssue(t.issueNumber)) ? null : notChange(t, verb),
  either: async (t, verb, candidate, services) => {
    if (t.isPullRequest) return (await candidate()) ? null : notCandidate(t, verb);
    return (await services.isChange(t.issueNumber)) ? null : notChange(t, verb);
  },
};

async function refuse(
  t: CommandTarget,
  services: CommandServices,
  verb: string,
  line: string,
  why: string,
): Promise<CommandRun> {
  await services.reply(t, `${quote(line)}\n\n@${t.user}: ${why}`);
  if (t.source === 'comment') await services.react(t, 'confused');
  return { handled: true, verb, outcome: 'refused' };
}

const usageOf = (verb: VerbModule, prefix: string): string =>
  `Usage: \`${prefix} ${verb.help.usage}\`${verb.help.arguments ? `, where ${verb.help.arguments}` : ''}.`;

async function execute(
  t: CommandTarget,
  verb: VerbModule,
  args: string,
  line: string,
  services: CommandServices,
): Promise<CommandRun> {
  const candidate = lookupCandidate(t, services);
  // Permission first: nothing but the role (and, for author rules, the candidate) is read before it.
  const isBot = looksLikeBot(t.user, t.userIsBot);
  const permission = isBot ? 'none' : await services.permission(t.user);
  const author = !isBot && verb.authorNeedsAdmin ? (await candidate())?.author : undefined;
  const isAuthor = author !== undefined && author.toLowerCase() === t.user.toLowerCase();
  const allowed = mayRun(verb, { permission, isAuthor, isBot });
  if (!allowed.ok) return refuse(t, services, verb.name, line, allowed.reason);

  if (verb.pattern && !verb.pattern.test(args.trim())) {
    return refuse(
      t,
      services,
      verb.name,
      line,
      `\`${verb.name}\` was not understood. ${usageOf(verb, services.prefix)}`,
    );
  }
  const misplaced = await WHERE[verb.where](t, verb.name, candidate, services);
  if (misplaced) return refuse(t, services, verb.name, line, misplaced.message);

  if (t.source === 'comment') await services.react(t, 'eyes');
  const result = await verb.run(t, args, services);
  // A verb that could not do it says why in a sentence; its code is for the log, not for people.
  const answer = result.ok ? result.message : `@${t.user}: ${result.message}`;
  await services.reply(t, `${quote(line)}\n\n${answer}`);
  if (result.ok && t.source === 'comment') await services.react(t, '+1');
  const outcome: CommandOutcome = verb.name === 'help' ? 'help' : result.ok ? 'done' : 'failed';
  return { handled: true, verb: verb.name, outcome };
}

/**
 * GitHub's "Re-run" on Arbiter's check `checkName` of a candidate: the `recheck` verb, under the
 * same permission rules as the button, answered on the candidate like a command.
 */
export async function runRerun(t: CommandTarget, checkName: string, services: CommandServices): Promise<CommandRun> {
  const verb = findVerb('recheck');
  if (!verb) return { handled: false };
  const line = `${services.prefix} recheck (GitHub's “Re-run” on ${checkName})`;
  return execute({ ...t, source: 'button', commentId: null, commentBody: null }, verb, '', line, services);
}

/** A slash command in a comment. Not handled: a button event, a bot's comment, or no command. */
export async function runCommand(t: CommandTarget, services: CommandServices): Promise<CommandRun> {
  if (t.source !== 'comment' || t.commentBody === null) return { handled: false };
  // A bot's comment is never read: answering it could start a loop between bots.
  if (looksLikeBot(t.user, t.userIsBot)) return { handled: false };
  const parsed = parseCommand(t.commentBody, services.prefix);
  if (!parsed) return { handled: false };
  const verb = findVerb(parsed.verb === '' ? 'help' : parsed.verb);
  if (verb) return execute(t, verb, parsed.args, parsed.line, services);

  await services.reply(
    t,
    `${quote(parsed.line)}\n\n\`${parsed.verb}\` is not an Arbiter command.\n\n${renderHelp(VERBS, services.prefix)}`,
  );
  await services.react(t, 'confused');
  return { handled: true, verb: 'help', outcome: 'help' };
}

/** A click on one of the `Arbiter / selection` buttons; an unknown identifier is not handled. */
export async function runButton(t: CommandTarget, identifier: string, services: CommandServices): Promise<CommandRun> {
  const name = verbForButton(identifier);
  const verb = name === null ? null : findVerb(name);
  if (!verb) return { handled: false };
  const button = SELECTION_BUTTONS.find((b) => b.identifier === identifier);
  const line = `${services.prefix} ${verb.name} (the “${button?.label ?? identifier}” button)`;
  return execute({ ...t, source: 'button', commentId: null, commentBody: null }, verb, '', line, services);
}
