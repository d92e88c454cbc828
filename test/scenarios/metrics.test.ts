// The real app under the scenario runner with ARBITER_METRICS=1: after the showcase scenario its
// /metrics shows the GitHub requests it made (token requests included), the rate limit the
// emulator reported, the model calls and tokens, and the decision.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, runScenario } from '../../sim/runner/index.ts';

const load = (name: string) => loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));

/** Sums the samples of one metric whose label text matches `labels`. */
function total(text: string, name: string, labels: RegExp = /.*/): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{.*\})? (\S+)$/.exec(line);
    if (m && m[1] === name && labels.test(m[2] ?? '')) sum += Number(m[3]);
  }
  return sum;
}

describe('metrics under a scenario', () => {
  it('count the requests, the tokens and the decision of the showcase', { timeout: 240_000 }, async () => {
    let text = '';
    await runScenario(await load('showcase'), {
      log: () => {},
      appEnv: { ARBITER_METRICS: '1' },
      inspect: async (_gh, app) => {
        text = await (await fetch(`${app.baseUrl}/metrics`)).text();
      },
    });
    expect(total(text, 'arbiter_webhooks_received_total')).toBeGreaterThan(0);
    expect(total(text, 'arbiter_github_requests_total', /route="POST \/graphql"/)).toBeGreaterThan(0);
    expect(total(text, 'arbiter_github_requests_total', /access_tokens",status="201"/)).toBeGreaterThan(0);
    expect(total(text, 'arbiter_github_rate_limit_remaining')).toBeGreaterThan(0);
    expect(total(text, 'arbiter_model_calls_total', /outcome="ok"/)).toBeGreaterThan(0);
    expect(total(text, 'arbiter_model_tokens_total', /direction="input"/)).toBeGreaterThan(0);
    expect(total(text, 'arbiter_model_tokens_total', /direction="output"/)).toBeGreaterThan(0);
    expect(total(text, 'arbiter_decisions_total')).toBeGreaterThanOrEqual(1);
    expect(total(text, 'arbiter_settle_to_decision_seconds_count')).toBeGreaterThanOrEqual(1);
  });
});
