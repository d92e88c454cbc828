// Extracts the REST operations the GitHub emulator serves from GitHub's OpenAPI description
// (@octokit/openapi 23.0.2) into sim/github/openapi-subset.json: parameters, request body and
// every answer's schema by status, with every component they reach (refs kept, unreached pruned).
// Usage: tsx scripts/extract-openapi.ts [path/to/api.github.com.json]
// Without a path it runs `npm pack @octokit/openapi@23.0.2` into a temporary folder and extracts it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OPENAPI_PACKAGE = '@octokit/openapi@23.0.2';
const OUTPUT = fileURLToPath(new URL('../sim/github/openapi-subset.json', import.meta.url));

/** The operations the emulator serves: "METHOD /route". Keep in step with sim/github/rest/. */
export const SERVED_OPERATIONS: readonly string[] = [
  'GET /app',
  'GET /app/installations',
  'POST /app/installations/{installation_id}/access_tokens',
  'GET /repos/{owner}/{repo}/installation',
  // The app's webhook deliveries: the recovery of webhooks GitHub could not deliver.
  'GET /app/hook/deliveries',
  'POST /app/hook/deliveries/{delivery_id}/attempts',
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/contents/{path}',
  'GET /repos/{owner}/{repo}/branches/{branch}',
  // The dashboard issue: found among Arbiter's own issues (creator), created once, edited in place.
  'GET /repos/{owner}/{repo}/issues',
  'POST /repos/{owner}/{repo}/issues',
  'GET /repos/{owner}/{repo}/issues/{issue_number}',
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions',
  'GET /repos/{owner}/{repo}/pulls',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}',
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
  // A strict branch's winner that fell behind: its branch is brought up to date once.
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
  'GET /repos/{owner}/{repo}/compare/{basehead}',
  'POST /repos/{owner}/{repo}/check-runs',
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}',
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
  'POST /repos/{owner}/{repo}/check-runs/{check_run_id}/rerequest',
  // A GitHub Actions scoring check is re-run as a job (a new check run), not rerequested.
  'POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun',
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
  'GET /repos/{owner}/{repo}/commits/{ref}/check-suites',
  'GET /repos/{owner}/{repo}/commits/{ref}/status',
  'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
  'POST /repos/{owner}/{repo}/statuses/{sha}',
  'GET /repos/{owner}/{repo}/rules/branches/{branch}',
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
  'POST /repos/{owner}/{repo}/dispatches',
  // The combined candidate (DESIGN.md section 6): a branch, two merges and a draft PR, all by API.
  'GET /repos/{owner}/{repo}/git/ref/{ref}',
  'POST /repos/{owner}/{repo}/git/refs',
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}',
  'POST /repos/{owner}/{repo}/merges',
  'POST /repos/{owner}/{repo}/pulls',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const STRIPPED_KEYS = new Set([
  'description',
  'summary',
  'examples',
  'example',
  'externalDocs',
  'x-github',
  'x-githubEnterpriseOverlays',
]);

function locateSpec(arg: string | undefined): string {
  if (arg) return arg;
  const dir = mkdtempSync(join(tmpdir(), 'octokit-openapi-'));
  execFileSync('npm', ['pack', OPENAPI_PACKAGE, '--silent'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  const tarball = execFileSync('sh', ['-c', 'ls *.tgz'], { cwd: dir, encoding: 'utf8' }).trim();
  execFileSync('tar', ['xzf', tarball, 'package/generated/api.github.com.json'], { cwd: dir });
  return join(dir, 'package/generated/api.github.com.json');
}

/** Copies a JSON value without documentation keys, collecting the component refs it reaches. */
function strip(value: Json, refs: Set<string>): Json {
  if (Array.isArray(value)) return value.map((v) => strip(v, refs));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (STRIPPED_KEYS.has(key)) {
      // a *property* called "description" or "summary" is data, not documentation
      if (!(
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        ('type' in v || '$ref' in v || 'anyOf' in v || 'oneOf' in v)
      ))
        continue;
    }
    if (key === '$ref' && typeof v === 'string') refs.add(v);
    out[key] = strip(v, refs);
  }
  return out;
}

function resolvePointer(spec: JsonObject, ref: string): Json {
  const parts = ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Json = spec;
  for (const part of parts) {
    if (!isObject(node) || !(part in node)) throw new Error(`unresolvable $ref ${ref}`);
    node = node[part];
  }
  return node;
}

function setPointer(target: JsonObject, ref: string, value: Json): void {
  const parts = ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: JsonObject = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (isObject(next)) node = next;
    else node = node[part] = {};
  }
  node[parts[parts.length - 1]] = value;
}

/** Each answer's JSON schema by status (error answers too), with shared responses inlined; headers and examples are documentation. */
function slimResponses(spec: JsonObject, op: JsonObject): JsonObject {
  const responses = isObject(op.responses) ? op.responses : {};
  const kept: JsonObject = {};
  for (const [code, declared] of Object.entries(responses)) {
    const response =
      isObject(declared) && typeof declared.$ref === 'string' ? resolvePointer(spec, declared.$ref) : declared;
    const content = isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
    kept[code] =
      isObject(content) && content.schema !== undefined
        ? { content: { 'application/json': { schema: content.schema } } }
        : {};
  }
  return kept;
}

/**
 * Limits GitHub states in prose only ("The number of results per page (max 100)"): outside them
 * GitHub quietly answers something other than what was asked, so a client sending them is wrong.
 */
const PARAMETER_LIMITS: Readonly<Record<string, JsonObject>> = {
  '#/components/parameters/per-page': { minimum: 1, maximum: 100 },
  '#/components/parameters/page': { minimum: 1 },
};

/**
 * Where GitHub's description is known to be wrong about what GitHub answers, the answer wins,
 * so that the emulator can answer as GitHub does. Each names the upstream report.
 */
const SCHEMA_CORRECTIONS: readonly { at: string; set: JsonObject; report: string }[] = [
  // a label made by adding it to an issue has no description: GitHub sends null
  {
    at: '#/components/schemas/pull-request-simple/properties/labels/items/properties/description',
    set: { nullable: true },
    report: 'github/rest-api-description#1812',
  },
];

function amend(components: JsonObject, ref: string, patch: JsonObject): void {
  const node = resolvePointer(components, ref.replace(/^#\/components\//, '#/'));
  if (!isObject(node)) throw new Error(`nothing to amend at ${ref}`);
  Object.assign(node, patch);
}

function amendComponents(components: JsonObject): void {
  for (const [ref, limits] of Object.entries(PARAMETER_LIMITS)) {
    const parameter = resolvePointer(components, ref.replace(/^#\/components\//, '#/'));
    if (!isObject(parameter) || !isObject(parameter.schema)) throw new Error(`no schema to limit at ${ref}`);
    parameter.schema = { ...parameter.schema, ...limits };
  }
  for (const correction of SCHEMA_CORRECTIONS) amend(components, correction.at, correction.set);
}

export function extractSubset(spec: JsonObject, operations: readonly string[]): JsonObject {
  const paths = isObject(spec.paths) ? spec.paths : {};
  const refs = new Set<string>();
  const outPaths: JsonObject = {};
  for (const entry of operations) {
    const [method, route] = entry.split(' ');
    const pathItem = paths[route];
    const op = isObject(pathItem) ? pathItem[method.toLowerCase()] : undefined;
    if (!isObject(op)) throw new Error(`operation not in the OpenAPI description: ${entry}`);
    const slim: JsonObject = {
      operationId: op.operationId ?? null,
      parameters: op.parameters ?? [],
      ...(op.requestBody ? { requestBody: op.requestBody } : {}),
    };
    const stripped = strip({ ...slim, responses: slimResponses(spec, op) }, refs);
    const existing = outPaths[route];
    outPaths[route] = { ...(isObject(existing) ? existing : {}), [method.toLowerCase()]: stripped };
  }
  const components: JsonObject = {};
  const done = new Set<string>();
  const queue = [...refs];
  while (queue.length > 0) {
    const ref = queue.pop();
    if (ref === undefined || done.has(ref)) continue;
    done.add(ref);
    const found = new Set<string>();
    const value = strip(resolvePointer(spec, ref), found);
    setPointer(components, ref.replace(/^#\/components\//, '#/'), value);
    for (const r of found) if (!done.has(r)) queue.push(r);
  }
  amendComponents(components);
  return {
    openapi: spec.openapi ?? '3.0.3',
    info: {
      title: 'GitHub REST subset served by the Arbiter emulator',
      source: OPENAPI_PACKAGE,
      amendments: [
        ...Object.entries(PARAMETER_LIMITS).map(
          ([at, set]) => `${at}/schema: ${JSON.stringify(set)} (GitHub's documented range)`,
        ),
        ...SCHEMA_CORRECTIONS.map((c) => `${c.at}: ${JSON.stringify(c.set)} (${c.report})`),
      ],
    },
    paths: outPaths,
    components,
  };
}

function main(): void {
  const specPath = locateSpec(process.argv[2]);
  const parsed: Json = JSON.parse(readFileSync(specPath, 'utf8'));
  if (!isObject(parsed)) throw new Error('not an OpenAPI document');
  const subset = extractSubset(parsed, SERVED_OPERATIONS);
  const text = JSON.stringify(subset) + '\n';
  writeFileSync(OUTPUT, text);
  process.stdout.write(
    `wrote ${OUTPUT} (${Math.round(text.length / 1024)} KB, ${SERVED_OPERATIONS.length} operations)\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
