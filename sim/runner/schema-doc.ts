// Keeps the JSON Schema embedded in docs/scenarios.md equal to the one generated from the
// runner's zod schema: the section between two markers is replaced wholesale.
import { scenarioJsonSchema } from '../scenario-schema.ts';

export const BEGIN = '<!-- BEGIN GENERATED SCENARIO SCHEMA (npx tsx scripts/gen-scenario-schema.ts) -->';
export const END = '<!-- END GENERATED SCENARIO SCHEMA -->';

export function schemaSection(): string {
  return `${BEGIN}\n\`\`\`json\n${JSON.stringify(scenarioJsonSchema(), null, 2)}\n\`\`\`\n${END}`;
}

/** The document with its generated section replaced; null when the markers are missing. */
export function withSchemaSection(doc: string): string | null {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return null;
  return doc.slice(0, start) + schemaSection() + doc.slice(end + END.length);
}
