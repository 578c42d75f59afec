import { parse, type Filter } from 'scim2-parse-filter';
import { AppError } from '@latchkey/errors';

/** A PATCH operation as read: op lower-cased, the path split, the value parsed. */
export interface ReadOperation {
  readonly op: 'add' | 'replace' | 'remove';
  /** Attribute path, lower-cased, schema URN taken off (e.g. "name.givenname", "members"); undefined when absent. */
  readonly attribute: string | undefined;
  /** The value filter of a path such as `members[value eq "…"]` or `emails[type eq "work"].value`. */
  readonly valueFilter: Filter | undefined;
  /** The sub-attribute after a value filter (`value` of `emails[type eq "work"].value`), lower-cased. */
  readonly subAttribute: string | undefined;
  readonly value: unknown;
}

const MAX_OPERATIONS = 1000;
const SCHEMA_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;
/** attribute[filter].sub, attribute.sub or attribute (RFC 7644 §3.5.2 PATH). */
const PATH = /^([A-Za-z][\w$-]*(?:\.[A-Za-z][\w$-]*)?)(?:\[(.+)\])?(?:\.([A-Za-z][\w$-]*))?$/;

function invalidPath(detail: string): AppError {
  return new AppError('scim:invalid_path', detail);
}

/** The parts of a path; the value filter is parsed by the same maintained parser as the filters. */
function readPath(path: string): Pick<ReadOperation, 'attribute' | 'valueFilter' | 'subAttribute'> {
  const bare = path.trim().replace(SCHEMA_PREFIX, '');
  // An extension's attribute (the enterprise User's department): named whole, kept by no one here, so let through.
  if (/^urn:/i.test(bare)) return { attribute: bare.toLowerCase(), valueFilter: undefined, subAttribute: undefined };
  const match = PATH.exec(bare);
  if (!match) throw invalidPath(`The path ${JSON.stringify(path)} is not a SCIM attribute path.`);
  const [, attribute, filterText, sub] = match;
  let valueFilter: Filter | undefined;
  if (filterText !== undefined) {
    try {
      valueFilter = parse(filterText);
    } catch {
      throw invalidPath(`The value filter of ${JSON.stringify(path)} is not valid.`);
    }
  }
  if (sub !== undefined && filterText === undefined) throw invalidPath(`The path ${JSON.stringify(path)} is not a SCIM attribute path.`);
  return { attribute: attribute!.toLowerCase(), valueFilter, subAttribute: sub?.toLowerCase() };
}

/**
 * Reads a PATCH request's operations as identity providers send them:
 * `op` in any case (Entra sends "Replace"), a path with or without a value
 * filter, or none with an object value.
 */
export function readOperations(operations: readonly { op: string; path: string; valueJson: string }[]): ReadOperation[] {
  if (operations.length === 0) throw new AppError('scim:invalid_syntax', 'Operations must hold at least one operation.');
  if (operations.length > MAX_OPERATIONS) throw new AppError('scim:invalid_syntax', `At most ${MAX_OPERATIONS} operations per request.`);
  return operations.map((operation) => {
    const op = operation.op.trim().toLowerCase();
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw new AppError('scim:invalid_syntax', `The op ${JSON.stringify(operation.op)} is not add, replace or remove.`);
    let value: unknown;
    if (operation.valueJson !== '') {
      try {
        value = JSON.parse(operation.valueJson);
      } catch {
        throw new AppError('scim:invalid_syntax', 'An operation value is not JSON.');
      }
    }
    const path = operation.path === '' ? { attribute: undefined, valueFilter: undefined, subAttribute: undefined } : readPath(operation.path);
    if (path.attribute === undefined && op === 'remove') throw new AppError('scim:no_target', 'A remove operation needs a path.');
    if (path.attribute === undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new AppError('scim:invalid_value', 'An operation without a path needs an object value.');
    }
    if (op !== 'remove' && value === undefined) throw new AppError('scim:invalid_value', `An ${op} operation needs a value.`);
    return { op, ...path, value };
  });
}

/**
 * A value object without a path, one operation per attribute, as RFC 7644
 * §3.5.2.1/3 read it; keys may be paths themselves (Entra sends
 * `{"name.givenName": "…"}`) or sub-objects (`{"name": {"givenName": "…"}}`).
 */
export function expandValueObject(operation: ReadOperation): ReadOperation[] {
  if (operation.attribute !== undefined) return [operation];
  return Object.entries(operation.value as Record<string, unknown>).map(([key, value]) => ({ ...operation, ...readPath(key), value }));
}

/** A SCIM boolean: true or false, or the strings "True" and "False" some identity providers send. */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  throw new AppError('scim:invalid_value', `${attribute} must be true or false.`);
}

/** An attribute of a JSON object whatever the case of its name (RFC 7643 §2.1: attribute names are case-insensitive). */
export function attributeOf(object: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}
