// Reads a scenario file (YAML or JSON) and validates it; errors come back as `path: message` lines.
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { parseScenario, type Scenario } from '../scenario-schema.ts';
import { ScenarioInvalidError } from './errors.ts';

/** Parses scenario text; YAML syntax errors are reported as `line:col: message`. */
export function parseScenarioText(text: string): { ok: true; scenario: Scenario } | { ok: false; errors: string[] } {
  const doc = parseDocument(text);
  if (doc.errors.length) {
    return {
      ok: false,
      errors: doc.errors.map(
        (e) => `${e.linePos ? `${e.linePos[0].line}:${e.linePos[0].col}` : '(yaml)'}: ${e.message.split('\n')[0]}`,
      ),
    };
  }
  return parseScenario(doc.toJS());
}

/** Loads and validates a scenario file; throws ScenarioInvalidError with every problem. */
export async function loadScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ScenarioInvalidError(file, [`(file): cannot be read: ${e instanceof Error ? e.message : String(e)}`]);
  }
  const r = parseScenarioText(text);
  if (!r.ok) throw new ScenarioInvalidError(file, r.errors);
  return r.scenario;
}
