// The risk policy's defaults: the gatekeeper's own files are high risk, so a candidate that
// changes them never ships without a person; other changes stay low until a rule says otherwise.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { assessRisk } from '../../src/core/policy.ts';

describe('default risk policy', () => {
  const policy = defaultConfig().policy;
  it.each<[string[], 'low' | 'medium' | 'high', boolean]>([
    [['.github/arbiter.yml'], 'high', false],
    [['CODEOWNERS'], 'high', false],
    [['.github/CODEOWNERS'], 'high', false],
    [['docs/CODEOWNERS'], 'high', false],
    [['.github/workflows/ci.yml'], 'high', false],
    [['.github/actions/setup/action.yml'], 'high', false],
    [['src/app.ts', '.github/actions/x/index.js'], 'high', false],
    [['src/app.ts'], 'low', true],
    [['.github/dependabot.yml'], 'low', true],
    [['docs/CODEOWNERS.md'], 'low', true],
  ])('%j is %s risk', (paths, risk, mayShip) => {
    const assessed = assessRisk(policy, { changedPaths: paths, changedLines: 10, labels: [] });
    expect({ risk: assessed.risk, mayShip: assessed.mayShip }).toEqual({ risk, mayShip });
  });
});
