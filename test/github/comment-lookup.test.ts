// Finding Arbiter's marked comments on many issues with one GraphQL query: the rule that decides
// create / edit / nothing (a table), how an answer is read (a Bot named like the app, not a user),
// and the real gateway against the emulator, which checks the query against GitHub's schema.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  planCommentWrite,
  readCommentsAnswer,
  type CommentWrite,
  type OwnComment,
} from '../../src/github/comment-lookup.ts';
import { systemClock } from '../../src/clock.ts';
import { GitHubGateway } from '../../src/github/gateway.ts';
import { markerFor } from '../../src/core/render/markers.ts';
import { startHarness, type Harness } from '../sim-github/harness.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const NOTE = markerFor('note:12:r1');

describe('planCommentWrite', () => {
  const table: { name: string; ours: OwnComment[]; body: string; want: CommentWrite }[] = [
    {
      name: 'no comment of ours: create, marker first',
      ours: [],
      body: 'Lost.',
      want: { kind: 'create', text: `${NOTE}\nLost.` },
    },
    {
      name: 'a body that carries its marker is sent as it is',
      ours: [],
      body: `${NOTE}\nLost.`,
      want: { kind: 'create', text: `${NOTE}\nLost.` },
    },
    {
      name: 'ours with another marker: create',
      ours: [{ id: 1, body: `${markerFor('note:12:r0')}\nOld round.` }],
      body: 'Lost.',
      want: { kind: 'create', text: `${NOTE}\nLost.` },
    },
    {
      name: 'ours with the marker and another text: edit it',
      ours: [{ id: 2, body: `${NOTE}\nWaiting.` }],
      body: 'Lost.',
      want: { kind: 'edit', id: 2, text: `${NOTE}\nLost.` },
    },
    {
      name: 'ours with the marker and the same text: nothing',
      ours: [{ id: 3, body: `${NOTE}\nLost.` }],
      body: 'Lost.',
      want: { kind: 'keep', id: 3 },
    },
    {
      name: 'two carry the marker: the oldest is the one',
      ours: [
        { id: 4, body: `${NOTE}\nA` },
        { id: 5, body: `${NOTE}\nLost.` },
      ],
      body: 'Lost.',
      want: { kind: 'edit', id: 4, text: `${NOTE}\nLost.` },
    },
  ];
  for (const { name, ours, body, want } of table)
    it(name, () => expect(planCommentWrite(ours, 'note:12:r1', body)).toEqual(want));
});

describe('readCommentsAnswer', () => {
  const page = (nodes: unknown[], more = false): unknown => ({
    comments: { totalCount: nodes.length + (more ? 1 : 0), pageInfo: { hasPreviousPage: more }, nodes },
  });
  const comment = (id: number, typename: string, login: string, body = `${NOTE}\nLost.`): unknown => ({
    fullDatabaseId: String(id),
    body,
    author: { __typename: typename, login },
  });

  it('keeps the Bot named like the app (GraphQL drops "[bot]"), not a user who happens to share the name', () => {
    const found = readCommentsAnswer(
      {
        repository: {
          i12: page([
            comment(1, 'User', 'arbiter'),
            comment(2, 'User', 'someone'),
            comment(3, 'Bot', 'other-app'),
            comment(2_200_000_000, 'Bot', 'arbiter'),
          ]),
        },
      },
      'arbiter',
    );
    expect(found).toEqual(new Map([[12, [{ id: 2_200_000_000, body: `${NOTE}\nLost.` }]]]));
  });

  it('leaves out an issue whose comments did not fit in one page, and one that was not answered', () => {
    const found = readCommentsAnswer(
      { repository: { i12: page([comment(1, 'Bot', 'arbiter')], true), i13: null, i14: page([]) } },
      'arbiter',
    );
    expect([...found.keys()]).toEqual([14]);
  });

  it('reads nothing from an answer of another shape', () => {
    expect(readCommentsAnswer({ data: 'nope' }, 'arbiter').size).toBe(0);
  });
});

// ---- the real gateway against the emulator

const OWNER = 'acme';
const NAME = 'comments';
const REPO = `${OWNER}/${NAME}`;
let h: Harness;
let gh: GitHubGateway;
let sent: string[];

beforeAll(async () => {
  h = await startHarness();
  h.emulator.createRepo({ owner: OWNER, name: NAME, files: { 'a.ts': 'export {};\n' } });
  await h.emulator.openIssue(REPO, { number: 7, title: 'Change', body: 'AC1', user: 'maintainer' });
  for (const n of [11, 12, 13]) {
    h.emulator.commit(REPO, `agent/${n}`, { files: { [`f${n}.ts`]: `${n}\n` }, from: 'main' });
    await h.emulator.openPullRequest(REPO, {
      number: n,
      head: `agent/${n}`,
      title: `#${n}`,
      body: 'Candidate-for: #7',
      user: 'agent',
    });
  }
  const { data } = await new (arbiterOctokit())({ auth: { token: h.jwt() }, baseUrl: h.emulator.url }).request(
    'POST /app/installations/{installation_id}/access_tokens',
    { installation_id: 1 },
  );
  const Octokit = arbiterOctokit();
  const octokit = new Octokit({ auth: { token: data.token }, baseUrl: h.emulator.url });
  octokit.hook.after('request', (response, options) => {
    const path = new URL(response.url).pathname;
    const operation =
      path === '/graphql' ? ` ${/query (\w+)/.exec(String((options as { query?: unknown }).query))?.[1] ?? ''}` : '';
    sent.push(`${options.method} ${path}${operation}`);
  });
  gh = new GitHubGateway(octokit, OWNER, NAME, 'arbiter', systemClock);
});

afterAll(async () => {
  await h?.stop();
});

beforeEach(() => {
  sent = [];
  h.emulator.violations.length = 0;
});

const commentsOn = (n: number): { user: string; body: string }[] => {
  const state = h.emulator.state(REPO);
  return (state.prs[n] ?? state.issues[n]).comments;
};

describe('GitHubGateway.findOwnComments against the emulator', () => {
  it("is one query GitHub's schema accepts, answering Arbiter's comments on issues and pull requests with their REST ids", async () => {
    const { id } = await gh.upsertComment(7, 'comparison:7', 'Comparison.');
    await h.emulator.comment(REPO, 7, 'maintainer', 'Thanks.');
    const note = (await gh.upsertComment(12, 'note:12:r1', 'Waiting.')).id;
    sent = [];
    const found = await gh.findOwnComments([7, 12, 13, 12]);
    expect(sent).toEqual(['POST /graphql ArbiterComments']);
    expect(h.emulator.violations).toEqual([]);
    expect(found).toEqual(
      new Map([
        [7, [{ id, body: `${markerFor('comparison:7')}\nComparison.` }]],
        [12, [{ id: note, body: `${NOTE}\nWaiting.` }]],
        [13, []],
      ]),
    );
  });

  it('what it finds turns the next write into an edit, without listing the issue', async () => {
    const found = await gh.findOwnComments([12]);
    sent = [];
    const written = await gh.upsertComment(12, 'note:12:r1', 'Lost to #11.', found.get(12));
    expect(written.created).toBe(false);
    expect(sent).toEqual([`PATCH /repos/${OWNER}/${NAME}/issues/comments/${written.id}`]);
    expect(commentsOn(12).filter((c) => c.body.includes(NOTE))).toEqual([
      { user: 'arbiter[bot]', body: `${NOTE}\nLost to #11.` },
    ]);
    // The same text again: nothing is sent.
    sent = [];
    await gh.upsertComment(12, 'note:12:r1', 'Lost to #11.', (await gh.findOwnComments([12])).get(12));
    expect(sent).toEqual(['POST /graphql ArbiterComments']);
  });

  it("another user's comment with the same marker text is not Arbiter's: Arbiter writes its own", async () => {
    const marker = markerFor('note:13:r1');
    await h.emulator.comment(REPO, 13, 'someone', `${marker}\nquoted`);
    // A user account named like the app is still a User, not the app's Bot.
    await h.emulator.comment(REPO, 13, 'arbiter', `${marker}\nquoted`);
    const found = await gh.findOwnComments([13]);
    expect(found.get(13)).toEqual([]);
    sent = [];
    const written = await gh.upsertComment(13, 'note:13:r1', 'Lost to #11.', found.get(13));
    expect(written.created).toBe(true);
    expect(sent).toEqual([`POST /repos/${OWNER}/${NAME}/issues/13/comments`]);
    expect(commentsOn(13).map((c) => c.user)).toEqual(['someone', 'arbiter', 'arbiter[bot]']);
  });

  it('an issue with more than 100 comments is left out, and the write lists it with REST (every page) instead', async () => {
    const marker = markerFor('note:11:r1');
    // Arbiter's marked comment is the oldest: outside the last 100 that the query reads.
    await gh.upsertComment(11, 'note:11:r1', 'Waiting.');
    for (let i = 0; i < 100; i++) await h.emulator.comment(REPO, 11, 'agent', `ping ${i}`);
    sent = [];
    const found = await gh.findOwnComments([11, 12]);
    expect(found.has(11)).toBe(false);
    expect(found.has(12)).toBe(true);
    const written = await gh.upsertComment(11, 'note:11:r1', 'Lost to #12.', found.get(11));
    expect(written.created).toBe(false);
    expect(sent).toEqual([
      'POST /graphql ArbiterComments',
      `GET /repos/${OWNER}/${NAME}/issues/11/comments`,
      `GET /repos/${OWNER}/${NAME}/issues/11/comments`,
      `PATCH /repos/${OWNER}/${NAME}/issues/comments/${written.id}`,
    ]);
    expect(commentsOn(11).filter((c) => c.body.includes(marker))).toEqual([
      { user: 'arbiter[bot]', body: `${marker}\nLost to #12.` },
    ]);
  });

  it('a number that is neither issue nor pull request: the others are still answered', async () => {
    const found = await gh.findOwnComments([12, 999]);
    expect([...found.keys()]).toEqual([12]);
  });
});
