// `--html OUT.html`: a scenario's comments and check runs as GitHub would show them, one section
// per pull request and issue, the markdown rendered with CommonMark + GFM (micromark).
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import type { IssueState, PrState, Transcript } from './transcript.ts';

type Check = PrState['checks'][string];

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Markdown as GitHub renders it; raw HTML kept (`<details>`, hidden markers), as GitHub keeps its safe part. */
export const markdownToHtml = (markdown: string): string =>
  micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()], allowDangerousHtml: true });

const STYLE = `
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.5; color: #1f2328; max-width: 1012px; margin: 2rem auto; padding: 0 1rem; }
section { border: 1px solid #d1d9e0; border-radius: 6px; margin: 1.5rem 0; padding: 0 1rem 1rem; }
h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
.comment, .check { border: 1px solid #d1d9e0; border-radius: 6px; margin: 1rem 0; }
.who { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: .5rem 1rem; font-weight: 600; }
.markdown-body { padding: .5rem 1rem; overflow-x: auto; }
.markdown-body table { border-collapse: collapse; display: block; overflow: auto; }
.markdown-body th, .markdown-body td { border: 1px solid #d1d9e0; padding: 6px 13px; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body code { background: #eff1f3; border-radius: 6px; padding: .2em .4em; font-size: 85%; }
.markdown-body pre { background: #f6f8fa; padding: 1rem; overflow: auto; }
.buttons button { margin-right: .5rem; }
.meta { color: #59636e; }`;

/** The opening post: the issue's or pull request's own body, as GitHub shows it above the comments. */
function opening(author: string, body: string | undefined): string {
  if (!body?.trim()) return '';
  return `<div class="comment opening"><div class="who">${escape(author)}</div><div class="markdown-body">${markdownToHtml(body)}</div></div>`;
}

const titled = (title: string | undefined): string => (title ? ` ${escape(title)}` : '');

function comments(list: { user: string; body: string }[]): string {
  return list
    .map(
      (c) =>
        `<div class="comment"><div class="who">${escape(c.user)} commented</div><div class="markdown-body">${markdownToHtml(c.body)}</div></div>`,
    )
    .join('\n');
}

function check(name: string, c: Check): string {
  const state = c.status === 'completed' ? (c.conclusion ?? 'completed') : c.status;
  const parts = [
    `<div class="who">${escape(name)}: ${escape(state)}${c.title ? ` — ${escape(c.title)}` : ''}${c.details_url ? ` · <a href="${escape(c.details_url)}">Details</a>` : ''}</div>`,
    c.summary ? `<div class="markdown-body summary">${markdownToHtml(c.summary)}</div>` : '',
    c.text ? `<div class="markdown-body text">${markdownToHtml(c.text)}</div>` : '',
    c.annotations?.length
      ? `<ul class="annotations">${c.annotations.map((a) => `<li>${escape(a.annotation_level)} ${escape(a.path)}:${a.start_line}: ${escape(a.message)}</li>`).join('')}</ul>`
      : '',
    c.actions?.length
      ? `<div class="buttons">${c.actions.map((a) => `<button title="${escape(a.description)}">${escape(a.label)}</button>`).join('')}</div>`
      : '',
  ];
  return `<div class="check" data-check="${escape(name)}">${parts.join('\n')}</div>`;
}

function prSection(num: string, pr: PrState): string {
  const state = pr.merged ? 'merged' : pr.state;
  const checks = Object.entries(pr.checks).sort(([a], [b]) => a.localeCompare(b));
  return [
    `<section id="pr-${escape(num)}" data-kind="pull">`,
    `<h2>Pull request #${escape(num)}${titled(pr.title)} <span class="meta">${escape(state)}${pr.labels.length ? ` · ${pr.labels.map(escape).join(', ')}` : ''}${pr.reviewers.length ? ` · review requested: ${pr.reviewers.map(escape).join(', ')}` : ''}</span></h2>`,
    opening('Description', pr.body),
    comments(pr.comments),
    ...checks.map(([name, c]) => check(name, c)),
    '</section>',
  ].join('\n');
}

function issueSection(num: string, issue: IssueState): string {
  return [
    `<section id="issue-${escape(num)}" data-kind="issue">`,
    `<h2>Issue #${escape(num)}${titled(issue.title)} <span class="meta">${escape(issue.state)}${issue.labels.length ? ` · ${issue.labels.map(escape).join(', ')}` : ''}</span></h2>`,
    opening('Description', issue.body),
    comments(issue.comments),
    '</section>',
  ].join('\n');
}

export function renderTranscriptHtml(t: Transcript, title: string): string {
  const byNumber = <T>(o: Record<string, T>): [string, T][] =>
    Object.entries(o).sort((a, b) => Number(a[0]) - Number(b[0]));
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escape(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body>',
    `<h1>${escape(title)}</h1>`,
    ...byNumber(t.issues).map(([n, i]) => issueSection(n, i)),
    ...byNumber(t.prs).map(([n, p]) => prSection(n, p)),
    '</body></html>',
    '',
  ].join('\n');
}
