// `SCENARIO_RUNS_DIR`: when set, every run also writes its scenario and transcript, as JSON, into that
// folder. The test set-up sets it, so that the pictures test (test/scenarios/pictures.test.ts) shows every
// bundled fixture's run as a person sees it without playing the fixtures a second time.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Scenario } from '../scenario-schema.ts';
import type { Transcript } from './transcript.ts';

export const RUNS_DIR_ENV = 'SCENARIO_RUNS_DIR';

/** One kept run: what was played, and what it left. */
export interface KeptRun {
  scenario: Scenario;
  transcript: Transcript;
}

let kept = 0;

/** Writes the run into the folder `SCENARIO_RUNS_DIR` names; nothing when it is unset. */
export async function keepRun(scenario: Scenario, transcript: Transcript): Promise<void> {
  const dir = process.env[RUNS_DIR_ENV];
  if (!dir) return;
  kept++;
  const run: KeptRun = { scenario, transcript };
  await writeFile(join(dir, `run-${process.pid}-${kept}.json`), JSON.stringify(run));
}
