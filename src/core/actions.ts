// The plan: a decision is a list of actions, each with an idempotency key, applied once by
// the executor (src/workflows/execute.ts). Pure data; building a plan does no I/O.
import type { Receipt } from './types.ts';

export interface CheckRunButton {
  label: string; // at most 20 characters
  description: string; // at most 40 characters
  identifier: string; // at most 20 characters
}

export type CheckRunName = 'Arbiter / gate' | 'Arbiter / acceptance' | 'Arbiter / selection' | 'Arbiter / config';

export interface CheckRunAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

/** What one write of an Arbiter check run says; shared by plans, the executor and the gateway. */
export interface CheckRunContent {
  name: CheckRunName;
  status: 'in_progress' | 'completed';
  conclusion?: 'success' | 'neutral' | 'failure' | 'action_required';
  title: string;
  summary: string;
  text?: string;
  buttons?: CheckRunButton[];
  annotations?: CheckRunAnnotation[];
  /** The page the run's "Details" link opens; GitHub requires one for `action_required`. */
  detailsUrl?: string;
}

export type Action =
  | { kind: 'comment'; key: string; issue: number; marker: string; body: string }
  | { kind: 'close'; key: string; pr: number }
  | { kind: 'label'; key: string; issue: number; labels: string[] }
  | { kind: 'unlabel'; key: string; issue: number; label: string }
  | { kind: 'mark-ready'; key: string; pr: number }
  | { kind: 'merge'; key: string; pr: number; sha: string; method: 'merge' | 'squash' | 'rebase' }
  | { kind: 'auto-merge'; key: string; pr: number; sha: string; method: 'merge' | 'squash' | 'rebase'; queue: boolean }
  | { kind: 'request-review'; key: string; pr: number; reviewers: string[]; teams: string[] }
  | ({ kind: 'check-run'; key: string; pr: number; headSha: string } & CheckRunContent)
  | { kind: 'dispatch'; key: string; eventType: string; payload: Record<string, unknown> }
  | { kind: 'receipt'; key: string; receipt: Receipt }
  /** `observed`: records what already happened on GitHub (a merge, a closure), kept in shadow mode. */
  | { kind: 'set-state'; key: string; pr: number; state: string; reason: string; observed?: boolean }
  /** Takes the Change's one repair for `pr` (a conditional insert: at most one per Change). */
  | { kind: 'claim-repair'; key: string; change: number; pr: number }
  | ({ kind: 'combine'; key: string } & CombineBuild);

/** What building a combined candidate takes: a branch at the base head, two heads merged, a draft PR. */
export interface CombineBuild {
  change: number;
  branch: string;
  base: string;
  sides: { pr: number; sha: string }[];
  title: string;
  body: string;
}

export type ActionKind = Action['kind'];

/** Writes that change PR state on GitHub; shadow mode drops them from a plan. */
export const PR_STATE_ACTIONS: ReadonlySet<ActionKind> = new Set([
  'close',
  'label',
  'unlabel',
  'mark-ready',
  'merge',
  'auto-merge',
  'request-review',
  'dispatch',
  'combine',
]);
