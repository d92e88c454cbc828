// GitHub's REST contract, from the committed OpenAPI subset: finds the operation a request
// names, decodes and checks its path parameters, and validates JSON bodies with ajv.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const SUBSET_ID = 'openapi-subset';

export interface Operation {
  method: string;
  route: string;
  operationId: string;
  pattern: RegExp;
  paramNames: string[];
  paramTypes: Record<string, string>;
  /** JSON pointer of the request body schema, compiled on first use */
  bodySchema: string | null;
}

export interface MatchedOperation {
  operation: Operation;
  params: Record<string, string>;
}

/** OpenAPI 3.0 `nullable` in JSON Schema terms, which ajv understands. */
function fixNullable(value: Json): Json {
  if (Array.isArray(value)) return value.map(fixNullable);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) out[key] = fixNullable(v);
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
  return out;
}

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function resolveRef(doc: JsonObject, node: Json): Json {
  if (!isObject(node) || typeof node.$ref !== 'string') return node;
  let current: Json = doc;
  for (const part of node.$ref.replace(/^#\//, '').split('/')) current = isObject(current) ? current[part.replace(/~1/g, '/').replace(/~0/g, '~')] : null;
  return current;
}

export class RestContract {
  readonly operations: Operation[] = [];
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(subsetPath: URL) {
    const raw: Json = JSON.parse(readFileSync(subsetPath, 'utf8'));
    if (!isObject(raw) || !isObject(raw.paths)) throw new Error('the OpenAPI subset is not an OpenAPI document');
    const doc = fixNullable(raw);
    if (!isObject(doc) || !isObject(doc.paths)) throw new Error('the OpenAPI subset is not an OpenAPI document');
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormatsModule.default(ajv);
    // GitHub's own format for `owner/name` (the `head_repo` of a new pull request).
    ajv.addFormat('repo.nwo', /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/);
    ajv.addSchema({ ...doc, $id: SUBSET_ID });
    this.ajv = ajv;
    for (const [route, item] of Object.entries(doc.paths)) {
      if (!isObject(item)) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!isObject(op)) continue;
        const paramNames = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const paramTypes: Record<string, string> = {};
        for (const p of Array.isArray(op.parameters) ? op.parameters : []) {
          const param = resolveRef(doc, p);
          if (isObject(param) && param.in === 'path' && typeof param.name === 'string' && isObject(param.schema) && typeof param.schema.type === 'string') paramTypes[param.name] = param.schema.type;
        }
        const source = route
          .split('/')
          .map((segment) => {
            const name = /^\{([^}]+)\}$/.exec(segment)?.[1];
            if (!name) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            // a file path may also arrive with its slashes unencoded
            return name === 'path' ? '(.+)' : '([^/]+)';
          })
          .join('/');
        const requestBody = resolveRef(doc, op.requestBody ?? null);
        const hasJsonBody = isObject(requestBody) && isObject(requestBody.content) && isObject(requestBody.content['application/json']);
        const pointer = `${SUBSET_ID}#/paths/${escapePointer(route)}/${method}/requestBody/content/application~1json/schema`;
        this.operations.push({
          method: method.toUpperCase(),
          route,
          operationId: typeof op.operationId === 'string' ? op.operationId : `${method} ${route}`,
          pattern: new RegExp(`^${source}$`),
          paramNames,
          paramTypes,
          bodySchema: hasJsonBody ? pointer : null,
        });
      }
    }
    // literal segments win over parameters (`issues/comments/{id}` before `issues/{number}`)
    const literalCount = (route: string): number => route.split('/').filter((s) => s && !s.startsWith('{')).length;
    this.operations.sort((a, b) => literalCount(b.route) - literalCount(a.route));
  }

  /** The operation for a method and path (without query), or null with a reason. */
  match(method: string, path: string): MatchedOperation | null {
    for (const operation of this.operations) {
      if (operation.method !== method) continue;
      const m = operation.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      operation.paramNames.forEach((name, index) => {
        params[name] = decodeURIComponent(m[index + 1]);
      });
      return { operation, params };
    }
    return null;
  }

  /** Whether any method serves this path (for 404 versus 405-like answers). */
  knowsPath(path: string): boolean {
    return this.operations.some((op) => op.pattern.test(path));
  }

  private bodyValidator(operation: Operation): ValidateFunction | null {
    if (operation.bodySchema === null) return null;
    let validate = this.validators.get(operation.bodySchema);
    if (!validate) {
      validate = this.ajv.compile({ $ref: operation.bodySchema });
      this.validators.set(operation.bodySchema, validate);
    }
    return validate;
  }

  /** Problems with the path parameters and JSON body, or an empty list. */
  check(matched: MatchedOperation, body: unknown): string[] {
    const problems: string[] = [];
    for (const [name, type] of Object.entries(matched.operation.paramTypes)) {
      const value = matched.params[name];
      if (value === undefined || value === '') problems.push(`path parameter ${name} is missing`);
      else if (type === 'integer' && !/^\d+$/.test(value)) problems.push(`path parameter ${name} must be an integer, got "${value}"`);
    }
    const validate = this.bodyValidator(matched.operation);
    if (validate && body !== undefined && !validate(body)) {
      for (const error of (validate.errors ?? []).slice(0, 8)) {
        const extra = error.params && 'allowedValues' in error.params ? `: ${JSON.stringify(error.params.allowedValues)}` : '';
        problems.push(`body${error.instancePath || ''} ${error.message ?? 'is invalid'}${extra}`);
      }
    }
    return problems;
  }
}
