import { z } from 'zod';
import { AppError, type FieldError } from '@latchkey/errors';
import { isBuiltInRole, isPermission, MAX_ROLE_PERMISSIONS } from './permissions';

/** 3-48 characters of a-z, 0-9 and "-", not at either end (docs/api.md, "Organisations"). */
export const SLUG = /^[a-z0-9][a-z0-9-]{1,46}[a-z0-9]$/;
const ROLE_NAME = /^[a-z][a-z0-9_-]{0,47}$/;
const MAX_NAME_LENGTH = 100;
const uuid = z.uuid();

export function isId(value: string): boolean {
  return uuid.safeParse(value).success;
}

/** Refuses a malformed id with the field it came in. */
export function checkId(value: string, field: string): FieldError[] {
  return isId(value) ? [] : [{ field, message: 'must be a UUID' }];
}

/** An organisation's display name: trimmed, 1-100 characters, one line. */
export function organizationName(name: string, field = 'name'): { name: string; problems: FieldError[] } {
  const trimmed = name.trim();
  const ok = trimmed.length >= 1 && [...trimmed].length <= MAX_NAME_LENGTH && !/\p{Cc}/u.test(trimmed);
  return { name: trimmed, problems: ok ? [] : [{ field, message: `must be 1-${MAX_NAME_LENGTH} characters on one line` }] };
}

export function checkSlug(slug: string, field = 'slug'): FieldError[] {
  return SLUG.test(slug) ? [] : [{ field, message: 'must be 3-48 characters of a-z, 0-9 and "-", not starting or ending with "-"' }];
}

/** A custom role's name; a built-in role's is refused, as it is not one to make. */
export function checkCustomRoleName(name: string, field = 'name'): FieldError[] {
  if (!ROLE_NAME.test(name)) return [{ field, message: 'must be 1-48 characters of a-z, 0-9, "_" and "-", starting with a letter' }];
  return isBuiltInRole(name) ? [{ field, message: 'is a built-in role' }] : [];
}

/** Any role's name, as a reference. */
export function checkRoleName(name: string, field = 'role'): FieldError[] {
  return ROLE_NAME.test(name) ? [] : [{ field, message: 'is not a role name' }];
}

/** A custom role's permissions: 1 to 100 `resource:action`, each once. */
export function checkPermissions(permissions: readonly string[], field = 'permissions'): FieldError[] {
  if (permissions.length < 1 || permissions.length > MAX_ROLE_PERMISSIONS) {
    return [{ field, message: `must hold 1 to ${MAX_ROLE_PERMISSIONS} permissions` }];
  }
  const problems: FieldError[] = [];
  permissions.forEach((permission, index) => {
    if (!isPermission(permission)) problems.push({ field: `${field}[${index}]`, message: 'must be resource:action (a-z, 0-9, "_", ".", "-"; the action may be "*")' });
  });
  return problems;
}

/** Throws the problems, if any, as one validation error. */
export function refuse(problems: readonly FieldError[]): void {
  if (problems.length > 0) throw AppError.validation([...problems]);
}
