import { type z } from 'zod';
import { developmentSecretProblems } from './development-secrets';

/** Thrown at start when the environment does not satisfy a process's schema. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

type Environment = Record<string, string | undefined>;

/**
 * Parses the environment once, at start. Empty strings count as unset so that
 * `FOO=` in a manifest means "use the default", as operators expect. Every
 * bad variable is reported in one error instead of one per restart.
 */
export function loadConfig<Schema extends z.ZodObject>(
  schema: Schema,
  env: Environment = process.env,
): Readonly<z.output<Schema>> {
  const present: Environment = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') present[key] = value;
  }
  const result = schema.safeParse(present);
  // A published development secret is refused in production even though it parses.
  const published = present.NODE_ENV === 'production' ? developmentSecretProblems(present, Object.keys(schema.shape)) : [];
  if (published.length > 0) throw new ConfigError(published);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const variable = issue.path.join('.') || '(environment)';
      const missing = issue.code === 'invalid_type' && present[String(issue.path[0])] === undefined;
      return `${variable}: ${missing ? 'is required' : issue.message}`;
    });
    throw new ConfigError(problems);
  }
  return Object.freeze(result.data);
}
