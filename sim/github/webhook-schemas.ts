// Validates webhook payloads against GitHub's published schemas (@octokit/webhooks-schemas,
// draft-07), one compiled validator per `event$action` definition, compiled on first use.
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const require = createRequire(import.meta.url);
const SCHEMA_ID = 'github-webhooks';

let ajv: Ajv | null = null;
const validators = new Map<string, ValidateFunction | null>();

function instance(): Ajv {
  if (ajv) return ajv;
  const created = new Ajv({ strict: false, allErrors: false });
  addFormatsModule.default(created);
  created.addKeyword({ keyword: 'tsAdditionalProperties', schemaType: 'boolean' });
  const schema: unknown = require('@octokit/webhooks-schemas/schema.json');
  if (typeof schema !== 'object' || schema === null) throw new Error('webhook schemas did not load');
  created.addSchema({ ...schema, $id: SCHEMA_ID });
  ajv = created;
  return created;
}

/** The schema definition for an event: `pull_request$opened`, or `push$event` for action-less events. */
export const definitionName = (event: string, action: string | undefined): string => `${event}$${action ?? 'event'}`;

/** Null when the payload is valid, else readable problems. */
export function validateWebhook(event: string, payload: unknown): string | null {
  const action = typeof payload === 'object' && payload !== null && 'action' in payload && typeof payload.action === 'string' ? payload.action : undefined;
  const name = definitionName(event, action);
  let validate = validators.get(name);
  if (validate === undefined) {
    validate = instance().getSchema(`${SCHEMA_ID}#/definitions/${name}`) ?? null;
    validators.set(name, validate);
  }
  if (validate === null) return `no published schema for webhook ${name}`;
  if (validate(payload)) return null;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`)
    .join('; ');
}
