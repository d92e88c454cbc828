// Carries out one act of the timeline against the emulator (people's acts and scripted CI)
// and says what happened in one readable line.
import type { GitHubEmulator } from '../github/index.ts';
import type { ModelScripts } from '../anthropic/index.ts';
import { repoOf, type Candidate, type CheckSpec, type Scenario } from '../scenario-schema.ts';
import type { Act, HeadKey } from './timeline.ts';
import { outputOf, type AgentScripts } from './agents.ts';
import type { WorkflowApprovals } from './approvals.ts';
import { ScenarioRunError } from './errors.ts';

export interface ActContext {
  scenario: Scenario;
  /** Scripted agents and re-runs (what Arbiter dispatched or asked to run again). */
  agents: AgentScripts;
  emulator: GitHubEmulator;
  /** Head sha of each scripted head (a candidate's first head, or one a push made). */
  heads: Map<HeadKey, string>;
  /** Scripted Actions runs that wait for a maintainer's approval (`awaitsApproval`). */
  approvals: WorkflowApprovals;
  scripts: ModelScripts;
  setScripts(s: ModelScripts): void;
  say(line: string): void;
  restart(): void;
}

type Event = Scenario['events'][number];

function candidate(s: Scenario, n: number): Candidate {
  const c = s.candidates.find((x) => x.number === n);
  if (!c) throw new ScenarioRunError(`#${n} is not a candidate of this scenario`);
  return c;
}

/** The app that reports a scripted check: GitHub Actions for a run that awaits approval or says `app: github-actions`, else the CI app. */
const checkApp = (check: CheckSpec): string =>
  check.awaitsApproval === true || check.app === 'github-actions' ? 'github-actions' : 'ci';

function headSha(ctx: ActContext, key: HeadKey): string {
  if (key.startsWith('sha:')) return key.slice(4);
  const sha = ctx.heads.get(key);
  if (!sha) throw new ScenarioRunError(`no head for ${key} yet (the runner's timeline is out of order)`);
  return sha;
}

function countFiles(files: Record<string, string>, deleted: string[], renamed: Record<string, string> = {}): string {
  const n = new Set([...Object.keys(files), ...Object.keys(renamed)]).size + deleted.length;
  return `${n} file${n === 1 ? '' : 's'}`;
}

/** The repository of a scenario's PR (or of the Change). */
const repoAt = (ctx: ActContext, n: number): string => repoOf(ctx.scenario, n);

/** The default branch of one of the scenario's repositories. */
function defaultBranchOf(s: Scenario, repo: string): string {
  return s.repos.find((r) => r.repo.toLowerCase() === repo.toLowerCase())?.defaultBranch ?? s.defaultBranch;
}

async function startCheck(ctx: ActContext, pr: number, sha: string, check: CheckSpec): Promise<void> {
  const { emulator } = ctx;
  const repo = repoAt(ctx, pr);
  if (check.kind === 'status') await emulator.setStatus(repo, sha, check.name, 'pending', check.description);
  else await emulator.startCheck(repo, sha, check.name, checkApp(check));
}

/**
 * Starts the scripted checks of a new head (check runs in progress, statuses pending), except late
 * ones (`startAt`) and GitHub Actions runs that wait for a maintainer's approval (`awaitsApproval`):
 * for those the head's Actions suite completes `action_required` with no run until `approveWorkflows`.
 */
export async function startChecks(ctx: ActContext, sha: string, pr: number, all: CheckSpec[]): Promise<void> {
  ctx.agents.noteChecks(sha, pr, all);
  if (ctx.approvals.note(sha, pr, all)) {
    await ctx.emulator.awaitWorkflowApproval(repoAt(ctx, pr), sha);
    const names = all.filter((c) => c.awaitsApproval === true).map((c) => c.name);
    ctx.say(`CI: GitHub Actions runs (${names.join(', ')}) on #${pr} wait for a maintainer's approval`);
  }
  const checks = all.filter((c) => c.startAt === undefined && c.awaitsApproval !== true);
  for (const check of checks) await startCheck(ctx, pr, sha, check);
  if (checks.length) ctx.say(`CI: ${checks.map((c) => c.name).join(', ')} started on #${pr}`);
}

export async function completeCheck(ctx: ActContext, pr: number, head: HeadKey, check: CheckSpec): Promise<void> {
  const { emulator } = ctx;
  const repo = repoAt(ctx, pr);
  const sha = headSha(ctx, head);
  if (check.kind === 'status') {
    const state = check.state ?? 'success';
    await emulator.setStatus(repo, sha, check.name, state, check.description);
    ctx.say(`CI: ${check.name} ${state} on #${pr}`);
    return;
  }
  if (ctx.approvals.holds(sha, check)) {
    ctx.say(`CI: ${check.name} on #${pr} has not run: its workflow runs wait for approval`);
    return;
  }
  const conclusion = check.conclusion ?? 'success';
  const output = outputOf(check, 0);
  await emulator.completeCheck(repo, sha, check.name, conclusion, output, checkApp(check));
  ctx.say(`CI: ${check.name} ${conclusion} on #${pr}${output?.title ? ` (${output.title})` : ''}`);
}

function firstLine(body: string): string {
  const line = body.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

// One entry per event kind: what the person (or agent) does on GitHub.
const EVENTS: Record<string, (ctx: ActContext, e: Event, index: number) => Promise<void>> = {
  async comment(ctx, e) {
    const c = e.comment!;
    await ctx.emulator.comment(repoAt(ctx, c.on), c.on, c.user, c.body);
    ctx.say(`${c.user} commented on #${c.on}: ${firstLine(c.body)}`);
  },
  async review(ctx, e) {
    const r = e.review!;
    await ctx.emulator.review(repoAt(ctx, r.on), r.on, r.user, r.state, r.body);
    ctx.say(`${r.user} reviewed #${r.on}: ${r.state}${r.body ? ` (${firstLine(r.body)})` : ''}`);
  },
  async push(ctx, e, index) {
    const p = e.push!;
    const c = candidate(ctx.scenario, p.on);
    const user = p.user ?? c.author;
    const sha = await ctx.emulator.push(
      repoAt(ctx, p.on),
      c.branch,
      {
        files: p.files,
        deleted: p.deleted,
        renamed: p.renamed,
        message: p.message ?? `Update ${c.branch}`,
        author: user,
      },
      user,
    );
    ctx.heads.set(`push:${index}`, sha);
    if (p.model) ctx.setScripts({ ...ctx.scripts, candidates: { ...ctx.scripts.candidates, [p.on]: p.model } });
    ctx.say(`${user} pushed to #${p.on} (${countFiles(p.files, p.deleted, p.renamed)}, head ${sha.slice(0, 7)})`);
    await startChecks(ctx, sha, p.on, p.checks);
  },
  async click(ctx, e) {
    const k = e.click!;
    await ctx.emulator.clickButton(repoAt(ctx, k.on), k.on, k.user, k.action);
    ctx.say(`${k.user} clicked "${k.action}" on #${k.on}`);
  },
  async rerun(ctx, e) {
    const r = e.rerun!;
    await ctx.emulator.rerequestCheck(repoAt(ctx, r.on), r.on, r.user, r.check, r.suite ?? false);
    ctx.say(
      `${r.user} re-ran ${r.suite ? `every check of Arbiter's suite (from "${r.check}")` : `"${r.check}"`} on #${r.on}`,
    );
  },
  async edit(ctx, e) {
    const d = e.edit!;
    // Default editor: the author of what is edited (a candidate's, else the Change's).
    const pull = ctx.scenario.candidates.find((c) => c.number === d.issue);
    const user = d.user ?? pull?.author ?? ctx.scenario.change.author;
    await ctx.emulator.editIssue(
      repoAt(ctx, d.issue),
      d.issue,
      { ...(d.title !== undefined ? { title: d.title } : {}), ...(d.body !== undefined ? { body: d.body } : {}) },
      user,
    );
    ctx.say(
      d.title === undefined
        ? `${user} edited #${d.issue}`
        : `${user} edited #${d.issue}: title "${d.title}"${d.body !== undefined ? ' and body' : ''}`,
    );
  },
  async link(ctx, e) {
    const l = e.link!;
    ctx.emulator.linkIssue(repoAt(ctx, l.on), l.on, l.issue, l.user);
    ctx.say(`${l.user} linked #${l.issue} to #${l.on} in its Development sidebar (GitHub sends no webhook)`);
  },
  async requestReview(ctx, e) {
    const r = e.requestReview!;
    await ctx.emulator.requestReview(repoAt(ctx, r.on), r.on, r.user, r.reviewers);
    ctx.say(`${r.user} requested a review of #${r.on} from ${r.reviewers.join(', ')}`);
  },
  async approveWorkflows(ctx, e, index) {
    const a = e.approveWorkflows!;
    const sha = await ctx.emulator.approveWorkflows(repoAt(ctx, a.on), a.on, a.user);
    const approved = sha === null ? null : ctx.approvals.approve(sha);
    if (sha === null || approved === null)
      throw new ScenarioRunError(
        `event ${index} (approveWorkflows on #${a.on}): no GitHub Actions runs wait for approval on its head`,
      );
    ctx.say(`${a.user} approved the workflow runs on #${a.on}`);
    for (const check of approved.start) await startCheck(ctx, a.on, sha, check);
    ctx.say(`CI: ${approved.start.map((c) => c.name).join(', ')} started on #${a.on}`);
    for (const check of approved.conclude) await completeCheck(ctx, a.on, `sha:${sha}`, check);
  },
  async close(ctx, e) {
    const k = e.close!;
    await ctx.emulator.closePullRequest(repoAt(ctx, k.on), k.on, k.user);
    ctx.say(`${k.user} closed #${k.on}`);
  },
  async label(ctx, e) {
    const l = e.label!;
    await ctx.emulator.addLabel(repoAt(ctx, l.on), l.on, l.name, l.user);
    ctx.say(`${l.user} labelled #${l.on} ${l.name}`);
  },
  async unlabel(ctx, e) {
    const l = e.unlabel!;
    await ctx.emulator.removeLabel(repoAt(ctx, l.on), l.on, l.name, l.user);
    ctx.say(`${l.user} removed label ${l.name} from #${l.on}`);
  },
  async retarget(ctx, e) {
    const r = e.retarget!;
    const user = r.user ?? candidate(ctx.scenario, r.on).author;
    await ctx.emulator.retargetPullRequest(repoAt(ctx, r.on), r.on, r.base, user);
    ctx.say(`${user} changed the base of #${r.on} to ${r.base}`);
  },
  async autoMergeOff(ctx, e) {
    const a = e.autoMergeOff!;
    const user = a.user ?? candidate(ctx.scenario, a.on).author;
    await ctx.emulator.turnOffAutoMerge(repoAt(ctx, a.on), a.on, a.reason ?? '', user);
    ctx.say(`auto-merge of #${a.on} turned off${a.reason ? ` (${a.reason})` : ` by ${user}`}`);
  },
  async dequeue(ctx, e) {
    const d = e.dequeue!;
    const user = d.user ?? candidate(ctx.scenario, d.on).author;
    await ctx.emulator.dequeuePullRequest(repoAt(ctx, d.on), d.on, d.reason, user);
    ctx.say(`#${d.on} left the merge queue (${d.reason})`);
  },
  async reopen(ctx, e) {
    const r = e.reopen!;
    await ctx.emulator.reopenPullRequest(repoAt(ctx, r.on), r.on, r.user);
    ctx.say(`${r.user} reopened #${r.on}`);
  },
  async ready(ctx, e) {
    const r = e.ready!;
    const user = r.user ?? candidate(ctx.scenario, r.on).author;
    await ctx.emulator.setDraft(repoAt(ctx, r.on), r.on, false, user);
    ctx.say(`${user} marked #${r.on} ready for review`);
  },
  async draft(ctx, e) {
    const r = e.draft!;
    const user = r.user ?? candidate(ctx.scenario, r.on).author;
    await ctx.emulator.setDraft(repoAt(ctx, r.on), r.on, true, user);
    ctx.say(`${user} converted #${r.on} to a draft`);
  },
  async closeChange(ctx, e) {
    const r = e.closeChange!;
    await ctx.emulator.closeIssue(ctx.scenario.repo, ctx.scenario.change.number, r.user);
    ctx.say(`${r.user} closed Change #${ctx.scenario.change.number}`);
  },
  async lockChange(ctx, e) {
    const r = e.lockChange!;
    const user = (r === true ? undefined : r.user) ?? ctx.scenario.change.author;
    await ctx.emulator.lockIssue(ctx.scenario.repo, ctx.scenario.change.number, user);
    ctx.say(`${user} locked Change #${ctx.scenario.change.number}`);
  },
};

const ACTS: { [K in Act['kind']]: (ctx: ActContext, act: Extract<Act, { kind: K }>) => Promise<void> } = {
  async tick() {},
  async branch(ctx, act) {
    const c = candidate(ctx.scenario, act.candidate);
    const repo = c.repo ?? ctx.scenario.repo;
    const sha = ctx.emulator.commit(repo, c.branch, {
      files: c.files,
      deleted: c.deleted,
      renamed: c.renamed,
      message: c.title,
      author: c.author,
      from: c.base ?? defaultBranchOf(ctx.scenario, repo),
    });
    ctx.heads.set(`open:${c.number}`, sha);
  },
  async open(ctx, act) {
    const c = candidate(ctx.scenario, act.candidate);
    const repo = c.repo ?? ctx.scenario.repo;
    await ctx.emulator.openPullRequest(repo, {
      number: c.number,
      head: c.branch,
      base: c.base ?? defaultBranchOf(ctx.scenario, repo),
      title: c.title,
      body: c.body,
      user: c.author,
      draft: c.draft,
      labels: c.labels,
      fork: c.fork,
    });
    ctx.say(
      `${c.author} opened ${c.repo ? `${c.repo}` : ''}#${c.number}${c.draft ? ' (draft)' : ''} from ${c.fork ? `a fork, ` : ''}${c.branch}, ${countFiles(c.files, c.deleted, c.renamed)}: ${firstLine(c.body)}`,
    );
    await startChecks(ctx, headSha(ctx, `open:${c.number}`), c.number, c.checks);
  },
  async start(ctx, act) {
    await startCheck(ctx, act.candidate, headSha(ctx, act.head), act.check);
    ctx.say(`CI: ${act.check.name} registered on #${act.candidate}`);
  },
  async check(ctx, act) {
    await completeCheck(ctx, act.candidate, act.head, act.check);
  },
  async event(ctx, act) {
    const e = ctx.scenario.events[act.index];
    const kind = Object.keys(EVENTS).find((k) => Reflect.get(e, k) !== undefined);
    if (!kind) throw new ScenarioRunError(`event ${act.index} has no act`);
    await EVENTS[kind](ctx, e, act.index);
  },
  async restart(ctx) {
    ctx.restart();
  },
  async 'agent-open'(ctx, act) {
    const agent = ctx.agents.agent(act.agent);
    if (!agent) throw new ScenarioRunError(`#${act.agent} is not a scripted agent`);
    const { repo, change, defaultBranch } = ctx.scenario;
    const title = agent.title ?? `Agent ${agent.branch}`;
    const sha = ctx.emulator.commit(repo, agent.branch, {
      files: agent.files,
      deleted: agent.deleted,
      message: title,
      author: agent.author,
      from: defaultBranch,
    });
    ctx.heads.set(`agent:${agent.number}`, sha);
    if (agent.model)
      ctx.setScripts({ ...ctx.scripts, candidates: { ...ctx.scripts.candidates, [agent.number]: agent.model } });
    const trailer = agent.trailer === false ? '' : `\nArbiter-slot: ${act.slot}`;
    const body = `Candidate-for: #${change.number}${trailer}\n\nApproach: ${act.approach}`;
    await ctx.emulator.openPullRequest(repo, {
      number: agent.number,
      head: agent.branch,
      base: defaultBranch,
      title,
      body,
      user: agent.author,
      draft: true,
    });
    ctx.say(
      `${agent.author} (agent) opened #${agent.number} (draft) for slot ${act.slot}${agent.trailer === false ? ' (no Arbiter-slot line)' : ''}, ${countFiles(agent.files, agent.deleted)}: ${act.approach}`,
    );
    await startChecks(ctx, sha, agent.number, agent.checks);
  },
  async 'agent-push'(ctx, act) {
    const agent = ctx.agents.agent(act.agent);
    const refine = agent?.refine;
    if (!agent || !refine) throw new ScenarioRunError(`#${act.agent} has no scripted refinement`);
    const sha = await ctx.emulator.push(
      ctx.scenario.repo,
      agent.branch,
      { files: refine.files, deleted: refine.deleted, message: `Refine ${agent.branch}`, author: agent.author },
      agent.author,
    );
    ctx.heads.set(`refine:${agent.number}`, sha);
    if (refine.model)
      ctx.setScripts({ ...ctx.scripts, candidates: { ...ctx.scripts.candidates, [agent.number]: refine.model } });
    ctx.say(
      `${agent.author} (agent) pushed its refinement to #${agent.number} (${countFiles(refine.files, refine.deleted)}, head ${sha.slice(0, 7)})`,
    );
    await startChecks(ctx, sha, agent.number, refine.checks);
  },
  async rerun(ctx, act) {
    if (act.inPlace) await ctx.emulator.reopenCheck(repoAt(ctx, act.candidate), act.sha, act.name, act.app);
    else await ctx.emulator.startCheck(repoAt(ctx, act.candidate), act.sha, act.name, act.app);
    ctx.say(`CI: ${act.name} re-run ${act.inPlace ? 're-opened the same run' : 'started'} on #${act.candidate}`);
  },
};

export async function runAct(ctx: ActContext, act: Act): Promise<void> {
  // ACTS is keyed by kind, each taking its own act type: TypeScript cannot correlate the two.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  const run = ACTS[act.kind] as (ctx: ActContext, act: Act) => Promise<void>;
  await run(ctx, act);
}
