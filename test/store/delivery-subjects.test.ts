// Check events on one head are interchangeable: a delivery leaves its work to a later pending one
// on the same head (or heads), never to an earlier one, never to one already done, and never once
// its own run went past that point (a retry may hold claims). On both backends.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkEventAsksNothing,
  checkEventSubject,
  concludesCheck,
  intakeCheckName,
  intakeSubject,
} from '../../src/core/check-subject.ts';
import { checkSubjectKey } from '../../src/core/keys.ts';
import { BACKENDS, openBackend, type OpenedBackend } from './backends.ts';

const REPO = 'acme/widgets';
const HEAD = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const run = (status: string, name = 'test', sha = HEAD) => ({
  action: status === 'completed' ? 'completed' : 'created',
  repository: { full_name: REPO },
  check_run: { name, head_sha: sha, status, app: { slug: 'ci' } },
});

describe('the subject of a check event', () => {
  it('is its head for a conclusion, and none for what settles nothing or is Arbiter’s own', () => {
    expect(checkEventSubject('check_run', run('completed'), 'arbiter')).toBe(checkSubjectKey(REPO, HEAD));
    expect(checkEventSubject('check_run', run('in_progress'), 'arbiter')).toBeNull();
    expect(checkEventSubject('check_run', run('completed', 'Arbiter / gate'), 'arbiter')).toBeNull();
    const own = { ...run('completed', 'lint'), check_run: { ...run('completed').check_run, app: { slug: 'arbiter' } } };
    expect(checkEventSubject('check_run', own, 'arbiter')).toBeNull();
    expect(checkEventSubject('check_run', { ...run('completed'), action: 'requested_action' }, 'arbiter')).toBeNull();
    const status = (state: string) => ({ repository: { full_name: REPO }, sha: HEAD, state, context: 'ci/x' });
    expect(checkEventSubject('status', status('success'), 'arbiter')).toBe(checkSubjectKey(REPO, HEAD));
    expect(checkEventSubject('status', status('pending'), 'arbiter')).toBeNull();
    const suite = (action: string) => ({
      action,
      repository: { full_name: REPO },
      check_suite: { head_sha: HEAD, app: { slug: 'ci' } },
    });
    expect(checkEventSubject('check_suite', suite('completed'), 'arbiter')).toBe(checkSubjectKey(REPO, HEAD));
    expect(checkEventSubject('check_suite', suite('requested'), 'arbiter')).toBeNull();
    // A suite of check runs concludes nothing of its own: each run's own event reads the head. A
    // suite with no run (Actions awaiting a maintainer's approval) is the only word of that head.
    const withRuns = (count: number, conclusion: string) => ({
      ...suite('completed'),
      check_suite: { head_sha: HEAD, app: { slug: 'ci' }, conclusion, latest_check_runs_count: count },
    });
    expect(checkEventSubject('check_suite', withRuns(3, 'success'), 'arbiter')).toBeNull();
    expect(checkEventAsksNothing('check_suite', withRuns(3, 'failure'), 'arbiter')).toBe(true);
    expect(checkEventSubject('check_suite', withRuns(0, 'action_required'), 'arbiter')).toBe(
      checkSubjectKey(REPO, HEAD),
    );
    expect(checkEventAsksNothing('check_suite', withRuns(0, 'action_required'), 'arbiter')).toBe(false);
    // At intake, before the app knows its slug, a suite (maybe Arbiter's own) is never waited for.
    expect(intakeSubject('check_suite', suite('completed'), undefined)).toBeNull();
    expect(intakeSubject('check_run', run('completed'), undefined)).toBe(checkSubjectKey(REPO, HEAD));
    expect(concludesCheck('check_run', run('queued'))).toBe(false);
    expect(concludesCheck('pull_request', { action: 'opened' })).toBe(true);
  });

  it('GitHub’s "Re-run" of Arbiter’s own check or suite asks for something (and waits for no other delivery)', () => {
    const own = { ...run('completed', 'Arbiter / acceptance'), action: 'rerequested' };
    expect(checkEventAsksNothing('check_run', run('completed', 'Arbiter / acceptance'), 'arbiter')).toBe(true);
    expect(checkEventAsksNothing('check_run', own, 'arbiter')).toBe(false);
    const suite = {
      action: 'rerequested',
      repository: { full_name: REPO },
      check_suite: { head_sha: HEAD, app: { slug: 'arbiter' } },
    };
    expect(checkEventAsksNothing('check_suite', suite, 'arbiter')).toBe(false);
    expect(checkEventSubject('check_run', own, 'arbiter')).toBeNull();
    expect(checkEventSubject('check_suite', suite, 'arbiter')).toBeNull();
  });
});

describe.each(BACKENDS)('deliveries that leave their work to a later one, on %s', (backend) => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend(backend, 'delivery-subjects');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  const record = (id: string, subject: string | null) =>
    opened.store.recordDeliveries([{ id, event: 'check_run', payload: {}, subject }]);
  const onHead = checkSubjectKey(REPO, HEAD);
  const onOther = checkSubjectKey(REPO, OTHER);

  it('yields to a later pending delivery on the same head, and the last one does the work', async () => {
    await record('d1', onHead);
    await record('d2', onHead);
    expect(await opened.store.yieldsToLaterDelivery('d1', [onHead])).toBe(onHead);
    expect(await opened.store.yieldsToLaterDelivery('d2', [onHead])).toBeNull();
    // Another head is no reason; one of the group's heads is, and it is named.
    await record('d3', onOther);
    expect(await opened.store.yieldsToLaterDelivery('d1', [onHead])).toBe(onHead);
    expect(await opened.store.yieldsToLaterDelivery('d2', [onHead, onOther])).toBeNull(); // d2 went past already
    await record('d4', null);
    expect(await opened.store.yieldsToLaterDelivery('d3', [onOther])).toBeNull();
  });

  it('orders deliveries committed together by id, so exactly one of them does the work', async () => {
    await opened.store.recordDeliveries([
      { id: 'b', event: 'check_run', payload: {}, subject: onHead },
      { id: 'a', event: 'check_run', payload: {}, subject: onHead },
    ]);
    expect(await opened.store.yieldsToLaterDelivery('a', [onHead])).toBe(onHead);
    expect(await opened.store.yieldsToLaterDelivery('b', [onHead])).toBeNull();
  });

  it('never yields to a delivery already done, nor once its own run went past, nor for an unknown id', async () => {
    await record('d1', onHead);
    await record('d2', onHead);
    await opened.store.markDeliveryDone('d2');
    expect(await opened.store.yieldsToLaterDelivery('d1', [onHead])).toBeNull();
    // d1 went past: a retry of it never yields, even to a later delivery.
    await record('d3', onHead);
    expect(await opened.store.yieldsToLaterDelivery('d1', [onHead])).toBeNull();
    expect(await opened.store.yieldsToLaterDelivery('nobody', [onHead])).toBeNull();
    // A delivery without a subject is never waited for.
    await record('d4', null);
    expect(await opened.store.yieldsToLaterDelivery('d3', [onHead])).toBeNull();
  });

  it('yields only to a later delivery whose check surely reads, and knows each one’s check', async () => {
    const named = (id: string, check: string | null) =>
      opened.store.recordDeliveries([{ id, event: 'check_run', payload: {}, subject: onHead, check }]);
    const reads = (check: string | null) => check === null || check === 'lint';
    await named('d1', 'test');
    await named('d2', 'docs');
    // `docs` may be recorded without a read: d1 does not leave its read to it.
    expect(await opened.store.yieldsToLaterDelivery('d1', [onHead], reads)).toBeNull();
    await named('d3', 'test');
    await named('d4', 'docs');
    await named('d5', 'lint');
    expect(await opened.store.yieldsToLaterDelivery('d3', [onHead], reads)).toBe(onHead);
    // With each one, the checks delivered on its head, done or not, once each.
    await opened.store.markDeliveryDone('d2');
    const delivered = ['docs', 'lint', 'test'];
    expect(await opened.store.getDeliveryCheck('d1')).toEqual({ check: 'test', evaluated: true, delivered });
    expect(await opened.store.getDeliveryCheck('d3')).toEqual({ check: 'test', evaluated: false, delivered });
    expect(await opened.store.getDeliveryCheck('nobody')).toBeNull();
    // A check's name is kept only with a subject (nothing reads a delivery that names no head).
    await opened.store.recordDeliveries([{ id: 'd6', event: 'check_run', payload: {}, subject: null, check: 'lint' }]);
    expect(await opened.store.getDeliveryCheck('d6')).toEqual({ check: null, evaluated: false, delivered: [] });
    // Another head's deliveries are its own.
    await opened.store.recordDeliveries([
      { id: 'd7', event: 'check_run', payload: {}, subject: `${onHead}-other`, check: 'e2e' },
    ]);
    expect((await opened.store.getDeliveryCheck('d7'))?.delivered).toEqual(['e2e']);
    expect((await opened.store.getDeliveryCheck('d1'))?.delivered).toEqual(delivered);
  });
});

describe('the check a check event names at intake', () => {
  it('is a run’s name or a status’s context; none for a suite, a re-run, or what asks nothing', () => {
    expect(intakeCheckName('check_run', run('completed', 'lint'), 'arbiter')).toBe('lint');
    expect(intakeCheckName('check_run', run('in_progress', 'lint'), 'arbiter')).toBeNull();
    expect(intakeCheckName('check_run', { ...run('completed'), action: 'rerequested' }, 'arbiter')).toBeNull();
    const status = { repository: { full_name: REPO }, sha: HEAD, state: 'success', context: 'ci/x' };
    expect(intakeCheckName('status', status, 'arbiter')).toBe('ci/x');
    const suite = {
      action: 'completed',
      repository: { full_name: REPO },
      check_suite: { head_sha: HEAD, app: { slug: 'ci' } },
    };
    expect(intakeCheckName('check_suite', suite, 'arbiter')).toBeNull();
  });
});
