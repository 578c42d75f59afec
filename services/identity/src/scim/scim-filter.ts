import { parse, type Filter } from 'scim2-parse-filter';
import { AppError } from '@latchkey/errors';

/** A filter as SQL: a condition over the listing's columns and its parameters, numbered after `offset`. */
export interface SqlFilter {
  readonly where: string;
  readonly params: unknown[];
}

/**
 * How one attribute of a resource is compared: the SQL expression, and
 * whether values compare case-insensitively (RFC 7643 §2.2 caseExact false,
 * as for userName). `exists` ones are a sub-query on the value ($n).
 */
export type FilterColumn =
  | { readonly sql: string; readonly caseExact: boolean; readonly kind?: 'text' }
  | { readonly sql: string; readonly kind: 'boolean' }
  | { readonly kind: 'exists'; readonly sql: (param: string) => string };

/** The core schemas' URNs, which a filter may put before an attribute. */
const SCHEMA_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;

function invalid(detail: string): AppError {
  return new AppError('scim:invalid_filter', detail);
}

/** Parses a filter with the maintained parser; its own errors say nothing a client needs, so one detail for all. */
export function parseFilter(text: string): Filter {
  if (text.length > 2000) throw invalid('The filter is longer than 2000 characters.');
  try {
    return parse(text);
  } catch {
    throw invalid('The filter is not valid SCIM filter syntax (RFC 7644 §3.4.2.2).');
  }
}

/**
 * Turns the supported subset of filters into SQL: `eq` on the columns
 * given, joined by `and`, and value paths whose filter the columns know
 * (`emails[type eq "work"]`, `members[value eq "…"]`). Anything else is
 * scim:invalid_filter rather than a guess.
 */
export function filterToSql(filter: Filter, columns: Readonly<Record<string, FilterColumn>>, offset: number): SqlFilter {
  const params: unknown[] = [];
  const column = (attrPath: string): FilterColumn => {
    const key = attrPath.replace(SCHEMA_PREFIX, '').toLowerCase();
    const found = Object.hasOwn(columns, key) ? columns[key] : undefined;
    if (!found) throw invalid(`Filtering on ${attrPath} is not supported.`);
    return found;
  };
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${offset + params.length}`;
  };
  const walk = (node: Filter): string => {
    switch (node.op) {
      case 'and':
        return `(${(node as { filters: Filter[] }).filters.map(walk).join(' AND ')})`;
      case 'eq': {
        const { attrPath, compValue } = node as { attrPath: string; compValue: unknown };
        const target = column(attrPath);
        if (target.kind === 'exists') {
          if (typeof compValue !== 'string') throw invalid(`${attrPath} compares with a string.`);
          return target.sql(bind(compValue));
        }
        if (target.kind === 'boolean') {
          const value = compValue === true || (typeof compValue === 'string' && compValue.toLowerCase() === 'true');
          const falsy = compValue === false || (typeof compValue === 'string' && compValue.toLowerCase() === 'false');
          if (!value && !falsy) throw invalid(`${attrPath} compares with true or false.`);
          return `${target.sql} = ${bind(value)}`;
        }
        if (typeof compValue !== 'string') throw invalid(`${attrPath} compares with a string.`);
        return target.caseExact ? `${target.sql} = ${bind(compValue)}` : `lower(${target.sql}) = lower(${bind(compValue)})`;
      }
      case '[]': {
        const { attrPath, valFilter } = node as { attrPath: string; valFilter: Filter };
        const prefix = attrPath.replace(SCHEMA_PREFIX, '').toLowerCase();
        // A value filter is a filter on the sub-attributes: emails[type eq "work"] is emails.type eq "work".
        const scoped = (inner: Filter): Filter => {
          if (inner.op === 'and') return { op: 'and', filters: (inner as { filters: Filter[] }).filters.map(scoped) };
          if (inner.op === 'eq') return { ...inner, attrPath: `${prefix}.${(inner as { attrPath: string }).attrPath}` };
          throw invalid(`Only eq and and are supported inside ${attrPath}[…].`);
        };
        return walk(scoped(valFilter));
      }
      default:
        throw invalid(`The operator ${node.op} is not supported; eq and and are.`);
    }
  };
  return { where: walk(filter), params };
}
