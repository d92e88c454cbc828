// Public entry of the fake Anthropic endpoint used by tests and the scenario runner.
export { FakeAnthropic, type RecordedRequest } from './server.ts';
export type { CriterionScript, JudgeScript, ModelFault, ModelScripts } from './scripts.ts';
export { acceptanceAnswer, criterionIdsFromPrefix, rubricAnswer, verdictAnswer } from './scripts.ts';
