// Validates webhook payloads against GitHub's published schemas (@octokit/webhooks-schemas,
// draft-07), one validator per `event$action` definition, compiled on first use.
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const require = createRequire(import.meta.url);

let loaded: { ajv: Ajv; definitions: Record<string, unknown> } | null = null;
const validators = new Map<string, ValidateFunction | null>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function load(): { ajv: Ajv; definitions: Record<string, unknown> } {
  if (loaded) return loaded;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  ajv.addKeyword({ keyword: 'tsAdditionalProperties', schemaType: 'boolean' });
  const schema: unknown = require('@octokit/webhooks-schemas/schema.json');
  if (!isRecord(schema) || !isRecord(schema.definitions)) throw new Error('webhook schemas did not load');
  // each definition is added on its own, so a shared one (repository, user) compiles once for all events
  for (const [name, definition] of Object.entries(schema.definitions)) {
    const relinked = relink(definition);
    ajv.addSchema({ ...(isRecord(relinked) ? relinked : {}), $id: `webhook:${name}` });
  }
  loaded = { ajv, definitions: schema.definitions };
  return loaded;
}

/** Rewrites `#/definitions/x` to the id of x, so each definition is its own schema. */
function relink(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relink);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    out[key] =
      key === '$ref' && typeof value === 'string' ? value.replace(/^#\/definitions\//, 'webhook:') : relink(value);
  }
  return out;
}

/** The schema definition for an event: `pull_request$opened`, or `push$event` for action-less events. */
export const definitionName = (event: string, action: string | undefined): string => `${event}$${action ?? 'event'}`;

function validatorFor(name: string): ValidateFunction | null {
  let validate = validators.get(name);
  if (validate !== undefined) return validate;
  const { ajv, definitions } = load();
  // resolving a fragment of the whole file would compile all 300 definitions (seconds)
  validate = name in definitions ? (ajv.getSchema(`webhook:${name}`) ?? null) : null;
  validators.set(name, validate);
  return validate;
}

/** Null when the payload is valid, else readable problems. */
export function validateWebhook(event: string, payload: unknown): string | null {
  const action = isRecord(payload) && typeof payload.action === 'string' ? payload.action : undefined;
  // repository_dispatch carries the event type in `action`; its schema is action-less
  const name = event === 'repository_dispatch' ? definitionName(event, undefined) : definitionName(event, action);
  const validate = validatorFor(name) ?? validatorFor(definitionName(event, undefined));
  if (validate === null) return `no published schema for webhook ${name}`;
  if (validate(payload)) return null;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    )
    .join('; ');
}
