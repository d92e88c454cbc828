// The scenario runner's public API, for the CLI, the tests and the benchmarks.
export { runScenario, SCENARIO_EPOCH_MS, type RunOptions } from './run-scenario.ts';
export { loadScenarioFile, parseScenarioText } from './load.ts';
export { ScenarioInvalidError, ScenarioRunError } from './errors.ts';
export {
  renderFinalState,
  verdictLine,
  type Transcript,
  type PrState,
  type IssueState,
  type WriteEntry,
} from './transcript.ts';
export { parseScenario, type Scenario } from '../scenario-schema.ts';
