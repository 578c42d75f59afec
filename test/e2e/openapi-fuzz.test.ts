import fc from 'fast-check';
import { PASSWORD, signedInAccount } from '../support/accounts';
import { sessionSetCookie } from '../support/api-client';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

/**
 * Every operation of /v0/openapi.json, called with generated and mutated
 * path parameters, queries and bodies (wrong types, missing and extra
 * fields, huge and deeply nested values, NUL, invalid UTF-8, wrong content
 * types), against the running gateway: no answer may be a 5xx, and every
 * 4xx must be problem+json with a contract code. FUZZ_SEED reproduces a
 * run (the seed is in the test's name); FUZZ_RUNS sets the runs per
 * operation.
 */

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
/** Runs per operation: each operation is fuzzed on its own, so that none is left to chance. */
const runsPerOperation = Number(process.env.FUZZ_RUNS ?? 50);
const UNLIMITED = '100000000';

let stack: E2eStack;
let account: { email: string };

beforeAll(async () => {
  // Limits off: a 429 is a fine answer, but it would hide what lies behind it.
  stack = await startE2eStack('fuzz', {
    RATE_LIMIT_IP_MAX: UNLIMITED,
    RATE_LIMIT_LOGIN_FAILURES: UNLIMITED,
    RATE_LIMIT_ACCOUNT_FAILURES: UNLIMITED,
    RATE_LIMIT_MAIL_MAX: UNLIMITED,
    RATE_LIMIT_SEARCH_MAX: UNLIMITED,
    RATE_LIMIT_POST_WRITES: UNLIMITED,
    RATE_LIMIT_TOTP_FAILURES: '1000',
  });
  account = await signedInAccount(stack, 'fuzzed');
}, 60_000);

afterAll(async () => {
  await stack?.destroy();
});

interface JsonSchema {
  readonly type?: string | string[];
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: string[];
  readonly anyOf?: JsonSchema[];
  readonly items?: JsonSchema;
  readonly pattern?: string;
  readonly enum?: unknown[];
  readonly format?: string;
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly pathParameters: string[];
  readonly query: { name: string; schema: JsonSchema }[];
  readonly body: JsonSchema | undefined;
}

async function operationsOf(): Promise<Operation[]> {
  const document = (await (await fetch(`${stack.gatewayUrl}/v0/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: JsonSchema }[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      pathParameters: (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      query: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
      body: operation.requestBody?.content['application/json']?.schema,
    })),
  );
}

/** Strings that have broken parsers, databases and loggers before. */
const nastyStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u0007\u001b[31m',
  '😀'.repeat(300),
  'x'.repeat(70_000),
  "' OR 1=1 --",
  '"; DROP TABLE posts; --',
  '../../etc/passwd',
  '%00',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  '-1',
  '1e400',
  'NaN',
  'null',
  'a@b',
  `${'a'.repeat(65)}@example.com`,
  'user@-bad-.com',
  '01900000-0000-7000-8000-000000000000',
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  nastyStrings,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

function valueOf(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return anyJson;
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(valueOf));
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), anyJson);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof(
        { weight: 3, arbitrary: schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)) : fc.string({ maxLength: 40 }) },
        { weight: 2, arbitrary: nastyStrings },
        { weight: 1, arbitrary: fc.emailAddress() },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }) },
        { weight: 1, arbitrary: anyJson },
      );
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53, 1e308, 0.5), anyJson);
    case 'boolean':
      return fc.oneof(fc.boolean(), anyJson);
    case 'array':
      return fc.oneof(fc.array(valueOf(schema.items), { maxLength: 4 }), anyJson);
    case 'object':
      return objectOf(schema);
    default:
      return anyJson;
  }
}

/** A value the schema accepts, most of the time, so that a mutation elsewhere reaches the code behind validation. */
function validValueOf(name: string, schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return fc.string({ maxLength: 10 });
  if (schema.anyOf?.[0]) return validValueOf(name, schema.anyOf[0]);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' || type === 'number') return fc.integer({ min: 1, max: 100 });
  if (type === 'boolean') return fc.boolean();
  if (type === 'object') return objectOf(schema);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  if (/email/.test(name)) return fc.emailAddress();
  if (/(^|_)id$/.test(name) || schema.format === 'uuid') return fc.uuid();
  if (/password/.test(name)) return fc.constant('a long enough passphrase');
  return fc.stringMatching(/^[a-z][a-z ]{0,29}$/);
}

/** One field spoiled: a NUL or lone surrogate slipped in, a known troublemaker, the wrong type, or gone. */
function mutated(value: unknown): fc.Arbitrary<unknown> {
  const text = typeof value === 'string' ? value : 'text';
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .nat({ max: text.length })
        .chain((at) => fc.constantFrom('\u0000', '\u0000', '\ud800', '\u202e', '\uffff').map((bad) => `${text.slice(0, at)}${bad}${text.slice(at)}`)),
    },
    { weight: 2, arbitrary: nastyStrings },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** An object of the schema's fields: valid with one field spoiled, all valid, or loosely anything. */
function objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(schema.properties ?? {});
  const valid = fc.record(Object.fromEntries(fields.map(([name, field]) => [name, validValueOf(name, field)]))) as fc.Arbitrary<Record<string, unknown>>;
  const loose = fc
    .tuple(
      fc.tuple(...fields.map(([name, field]) => fc.option(valueOf(field).map((value) => [name, value] as const), { freq: 5 }))),
      fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 2 }),
    )
    .map(([present, extra]) => ({ ...extra, ...Object.fromEntries(present.filter((entry) => entry !== null)) }));
  if (fields.length === 0) return fc.oneof(valid, loose);
  const spoiled = fc
    .tuple(valid, fc.constantFrom(...fields.map(([name]) => name)))
    .chain(([object, name]) => mutated(object[name]).map((value) => ({ ...object, [name]: value })));
  return fc.oneof({ weight: 5, arbitrary: spoiled }, { weight: 2, arbitrary: valid }, { weight: 2, arbitrary: loose });
}

/** A body and its content type: mostly JSON near the schema, sometimes anything but. */
function bodyOf(schema: JsonSchema | undefined): fc.Arbitrary<{ body: string | Buffer | undefined; type: string | undefined }> {
  const json = (value: unknown) => ({ body: JSON.stringify(value), type: 'application/json' });
  return fc.oneof(
    { weight: 24, arbitrary: valueOf(schema ?? { type: 'object' }).map(json) },
    { weight: 1, arbitrary: anyJson.map(json) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((depth) => ({ body: `${'['.repeat(depth)}${']'.repeat(depth)}`, type: 'application/json' })) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((depth) => ({ body: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, type: 'application/json' })) },
    { weight: 1, arbitrary: fc.constant({ body: Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d]), type: 'application/json' }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ body: text, type: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 60 }), fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=utf-16', 'application/jsonx'))
        .map(([text, type]) => ({ body: text, type })),
    },
    { weight: 1, arbitrary: fc.constant({ body: undefined, type: undefined }) },
    { weight: 1, arbitrary: fc.constant({ body: 'x'.repeat(80 * 1024), type: 'application/json' }) },
  );
}

/** Percent-encoding of any value; a lone surrogate, which has no UTF-8, goes as U+FFFD as a browser would send it. */
const encode = (value: unknown): string =>
  encodeURIComponent(Buffer.from(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 'utf8').toString('utf8'));

/** A path parameter as it goes on the wire: encoded text, or bytes that are not valid percent-encoding or UTF-8. */
const pathParameter = fc.oneof(
  fc.uuid(),
  fc.constantFrom('google', 'github'),
  fc.string({ maxLength: 40 }).map(encode),
  nastyStrings.filter((text) => text.length < 400).map(encode),
  fc.constantFrom('%zz', '%', '%00', '%C0%AF', '%FF%FE', 'x'.repeat(300), '..', '%2F..%2F', '%E2%80%AE'),
);

const queryValue = fc.oneof(
  fc.string({ maxLength: 40 }).map(encode),
  fc.integer().map(String),
  nastyStrings.filter((text) => text.length < 2_000).map(encode),
  fc.constantFrom('%zz', '%00', '%FF', '', '1e400', '-0'),
);

function requestOf(operation: Operation) {
  return fc.record({
    pathValues: fc.tuple(...operation.pathParameters.map(() => pathParameter)),
    query: fc.tuple(
      ...operation.query.map((parameter) =>
        fc.option(
          fc.oneof(
            validValueOf(parameter.name, parameter.schema).map(encode),
            validValueOf(parameter.name, parameter.schema).chain(mutated).map(encode),
            queryValue,
          ),
        ),
      ),
    ),
    extraQuery: fc.option(fc.tuple(fc.string({ maxLength: 8 }).map(encode), queryValue)),
    // fetch sends no body with GET; a DELETE may carry one.
    payload:
      operation.method === 'GET'
        ? fc.constant({ body: undefined, type: undefined })
        : operation.method === 'DELETE'
          ? fc.oneof(fc.constant({ body: undefined, type: undefined }), bodyOf(operation.body))
          : bodyOf(operation.body),
    withSession: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  });
}

/** Operations that may end the session they are called with. */
const sessionEnding = new Set(['POST /v0/auth/logout', 'POST /v0/auth/change-password', 'DELETE /v0/auth/sessions/{id}', 'DELETE /v0/users/me']);
let sessionCookie: string | undefined;

async function freshSessionCookie(): Promise<string> {
  const response = await fetch(`${stack.gatewayUrl}/v0/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: PASSWORD }),
  });
  const cookie = sessionSetCookie(response.headers)?.split(';')[0];
  if (response.status !== 200 || !cookie) throw new Error(`could not sign in again: ${response.status}`);
  return cookie;
}

describe('every operation of the OpenAPI document, fuzzed', () => {
  it(`answers generated and mutated requests without a 5xx, and every 4xx as problem+json (FUZZ_SEED=${seed})`, async () => {
    const operations = await operationsOf();
    expect(operations.length).toBeGreaterThan(30);
    for (const [index, operation] of operations.entries()) await fuzz(operation, seed + index);
  }, 600_000);
});

/** Fuzzes one operation; a failure names the seed that reproduces it. */
async function fuzz(operation: Operation, operationSeed: number): Promise<void> {
    await fc.assert(
      fc.asyncProperty(requestOf(operation), async (request) => {
        let index = 0;
        const path = operation.path.replace(/\{[^}]+\}/g, () => request.pathValues[index++] ?? 'x');
        const query = operation.query
          .map((parameter, i) => (request.query[i] === null ? undefined : `${parameter.name}=${request.query[i]}`))
          .filter((part) => part !== undefined);
        if (request.extraQuery) query.push(`${request.extraQuery[0]}=${request.extraQuery[1]}`);
        const url = `${stack.gatewayUrl}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
        const headers: Record<string, string> = {};
        if (request.payload.type) headers['content-type'] = request.payload.type;
        // A new session after any call that may have ended it, so that every session call has a live one.
        if (request.withSession) {
          sessionCookie ??= await freshSessionCookie();
          headers.cookie = sessionCookie;
          if (sessionEnding.has(`${operation.method} ${operation.path}`)) sessionCookie = undefined;
        }
        // A redirect is the gateway's answer (the SSO endpoints send the browser to the web app): it is judged, not followed.
        const response = await fetch(url, { method: operation.method, headers, body: request.payload.body, redirect: 'manual' });
        const text = await response.text();
        const seen = { method: operation.method, url: url.slice(0, 300), status: response.status, body: text.slice(0, 300) };
        expect({ ...seen, serverError: response.status >= 500 }).toEqual({ ...seen, serverError: false });
        if (response.status >= 400) {
          expect({ ...seen, type: response.headers.get('content-type') }).toEqual({ ...seen, type: expect.stringMatching(/^application\/problem\+json/) });
          const problem = JSON.parse(text) as { status?: unknown; code?: unknown };
          expect({ ...seen, problemStatus: problem.status, code: problem.code }).toEqual({
            ...seen,
            problemStatus: response.status,
            code: expect.stringMatching(/^[a-z_]+:[a-z_]+$/),
          });
        }
      }),
      {
        seed: operationSeed,
        numRuns: runsPerOperation,
        endOnFailure: true,
        // Deep and huge values would make the report megabytes long: it keeps what reproduces the run.
        asyncReporter: async (details) => {
          if (!details.failed) return;
          const failure = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
          throw new Error(
            `${operation.method} ${operation.path} (FUZZ_SEED=${seed}) failed after ${details.numRuns} runs (path ${details.counterexamplePath ?? ''}):\n` +
              `${fc.stringify(details.counterexample).slice(0, 1_500)}\n${failure.slice(0, 3_000)}`,
          );
        },
      },
    );
}
