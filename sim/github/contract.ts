// GitHub's REST contract, from the committed OpenAPI subset: finds the operation a request
// names, checks its path and query parameters and its JSON body, and checks every answer
// against the operation's response schema for that status (ajv).
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
  /** the query parameters GitHub defines for the operation, with their schemas' pointers */
  query: QueryParameter[];
  /** documented answers: status → pointer of the JSON body's schema, or null for no body */
  responses: Record<string, string | null>;
}

export interface QueryParameter {
  name: string;
  required: boolean;
  schema: string;
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
  for (const part of node.$ref.replace(/^#\//, '').split('/'))
    current = isObject(current) ? current[part.replace(/~1/g, '/').replace(/~0/g, '~')] : null;
  return current;
}

/** GitHub answers any operation with its generic error when the status is not one it documents. */
const GENERIC_ERROR = `${SUBSET_ID}#/components/schemas/basic-error`;

/** A query string's values as JSON: integers and booleans where the schema says so (ajv coerces). */
function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of query) out[name] = value;
  return out;
}

function ajvProblems(validate: ValidateFunction, where: string): string[] {
  return (validate.errors ?? []).slice(0, 8).map((error) => {
    const extra =
      error.params && 'allowedValues' in error.params ? `: ${JSON.stringify(error.params.allowedValues)}` : '';
    return `${where}${error.instancePath || ''} ${error.message ?? 'is invalid'}${extra}`;
  });
}

export class RestContract {
  readonly operations: Operation[] = [];
  private readonly ajv: Ajv;
  /** query strings are text: this one coerces `per_page=20` to the integer its schema wants */
  private readonly queryAjv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(subsetPath: URL) {
    const raw: Json = JSON.parse(readFileSync(subsetPath, 'utf8'));
    if (!isObject(raw) || !isObject(raw.paths)) throw new Error('the OpenAPI subset is not an OpenAPI document');
    const doc = fixNullable(raw);
    if (!isObject(doc) || !isObject(doc.paths)) throw new Error('the OpenAPI subset is not an OpenAPI document');
    const makeAjv = (coerceTypes: boolean): Ajv => {
      const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, coerceTypes });
      addFormatsModule.default(ajv);
      // GitHub's own format for `owner/name` (the `head_repo` of a new pull request).
      ajv.addFormat('repo.nwo', /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/);
      ajv.addSchema({ ...doc, $id: SUBSET_ID });
      return ajv;
    };
    this.ajv = makeAjv(false);
    this.queryAjv = makeAjv(true);
    for (const [route, item] of Object.entries(doc.paths)) {
      if (!isObject(item)) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!isObject(op)) continue;
        const paramNames = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const paramTypes: Record<string, string> = {};
        const query: QueryParameter[] = [];
        const opPointer = `${SUBSET_ID}#/paths/${escapePointer(route)}/${method}`;
        (Array.isArray(op.parameters) ? op.parameters : []).forEach((p, index) => {
          const param = resolveRef(doc, p);
          if (!isObject(param) || typeof param.name !== 'string' || !isObject(param.schema)) return;
          if (param.in === 'path' && typeof param.schema.type === 'string') paramTypes[param.name] = param.schema.type;
          const at =
            isObject(p) && typeof p.$ref === 'string' ? `${SUBSET_ID}${p.$ref}` : `${opPointer}/parameters/${index}`;
          if (param.in === 'query')
            query.push({ name: param.name, required: param.required === true, schema: `${at}/schema` });
        });
        const responses: Record<string, string | null> = {};
        for (const [code, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
          const json =
            isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
          responses[code] =
            isObject(json) && json.schema !== undefined
              ? `${opPointer}/responses/${code}/content/application~1json/schema`
              : null;
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
        const hasJsonBody =
          isObject(requestBody) && isObject(requestBody.content) && isObject(requestBody.content['application/json']);
        const pointer = `${opPointer}/requestBody/content/application~1json/schema`;
        this.operations.push({
          method: method.toUpperCase(),
          route,
          operationId: typeof op.operationId === 'string' ? op.operationId : `${method} ${route}`,
          pattern: new RegExp(`^${source}$`),
          paramNames,
          paramTypes,
          bodySchema: hasJsonBody ? pointer : null,
          query,
          responses,
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

  private compiled(ajv: Ajv, key: string, schema: () => object): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = ajv.compile(schema());
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Problems with the path parameters, the query string and the JSON body, or an empty list. */
  check(matched: MatchedOperation, body: unknown, query: URLSearchParams = new URLSearchParams()): string[] {
    const { operation } = matched;
    const problems: string[] = [];
    for (const [name, type] of Object.entries(operation.paramTypes)) {
      const value = matched.params[name];
      if (value === undefined || value === '') problems.push(`path parameter ${name} is missing`);
      else if (type === 'integer' && !/^\d+$/.test(value))
        problems.push(`path parameter ${name} must be an integer, got "${value}"`);
    }
    const known = new Set(operation.query.map((q) => q.name));
    for (const name of new Set(query.keys()))
      if (!known.has(name))
        problems.push(
          `query parameter ${name} is not one of ${operation.operationId}'s (${[...known].join(', ') || 'none'})`,
        );
    const validateQuery = this.compiled(this.queryAjv, `query ${operation.method} ${operation.route}`, () => ({
      type: 'object',
      properties: Object.fromEntries(operation.query.map((q) => [q.name, { $ref: q.schema }])),
      required: operation.query.filter((q) => q.required).map((q) => q.name),
    }));
    if (!validateQuery(queryObject(query)))
      problems.push(
        ...ajvProblems(validateQuery, 'query').map((p) => p.replace(/^query\/([^ ]+)/, 'query parameter $1')),
      );
    if (operation.bodySchema !== null && body !== undefined) {
      const pointer = operation.bodySchema;
      const validate = this.compiled(this.ajv, pointer, () => ({ $ref: pointer }));
      if (!validate(body)) problems.push(...ajvProblems(validate, 'body'));
    }
    return problems;
  }

  /**
   * Problems with an answer the emulator is about to give, against GitHub's schema for that
   * operation and status, each naming the JSON pointer; an empty list when it conforms.
   * `body` is undefined for an empty answer; an answer in another media type (a diff) is not JSON.
   */
  checkResponse(operation: Operation, status: number, body: unknown): string[] {
    const code = String(status);
    const documented = Object.hasOwn(operation.responses, code);
    if (!documented && status < 400)
      return [
        `GitHub does not answer ${status} to ${operation.operationId} (it documents ${Object.keys(operation.responses).join(', ')})`,
      ];
    // an error GitHub documents without a body still comes with GitHub's generic error body
    const pointer = (documented ? operation.responses[code] : null) ?? (status >= 400 ? GENERIC_ERROR : null);
    if (pointer === null)
      return body === undefined
        ? []
        : [`GitHub answers ${status} to ${operation.operationId} with no body, the emulator sent one`];
    if (body === undefined)
      return [`GitHub answers ${status} to ${operation.operationId} with a JSON body, the emulator sent none`];
    const validate = this.compiled(this.ajv, pointer, () => ({ $ref: pointer }));
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 8).map((error) => {
      const extra =
        error.params && 'allowedValues' in error.params ? `: ${JSON.stringify(error.params.allowedValues)}` : '';
      return `at ${error.instancePath === '' ? '"" (the body)' : error.instancePath}: ${error.message ?? 'is invalid'}${extra}`;
    });
  }
}
