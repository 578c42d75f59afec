import type { RedisClient } from '@latchkey/db';
import { Gauge, type Registry } from 'prom-client';
import type { HealthProbe } from '@latchkey/grpc-kit';

/** One thing the gateway calls, and how to ask whether it answers now. */
export interface DependencyCheck {
  readonly name: string;
  check(): Promise<boolean>;
}

export function redisCheck(redis: RedisClient): DependencyCheck {
  return {
    name: 'redis',
    check: () =>
      redis.ping().then(
        () => true,
        () => false,
      ),
  };
}

export function unitCheck(name: string, probe: HealthProbe, service: string): DependencyCheck {
  return { name, check: () => probe.serving(service) };
}

/**
 * Whether each of the gateway's dependencies answers: Redis (sessions, rate
 * limits) and every gRPC unit. The gateway's readiness does not weigh them
 * (docs/operations.md, "Probes"): a dependency that is down fails only the
 * routes that need it, and taking every gateway pod out of its Service would
 * fail all the others too. Operators see them here instead: on the
 * operations port's `/dependencies`, which `helm test` reads, and as
 * `dependency_up{dependency}`, which LatchkeyDependencyDown alerts on.
 */
export class DependencyStatus {
  constructor(
    private readonly checks: readonly DependencyCheck[],
    registry: Registry,
  ) {
    const status = (): Promise<Readonly<Record<string, boolean>>> => this.status();
    new Gauge({
      name: 'dependency_up',
      help: 'Whether a dependency of the gateway answered when scraped: Redis or a gRPC unit (1 up, 0 down).',
      labelNames: ['dependency'],
      registers: [registry],
      async collect() {
        for (const [dependency, up] of Object.entries(await status())) this.set({ dependency }, up ? 1 : 0);
      },
    });
  }

  async status(): Promise<Readonly<Record<string, boolean>>> {
    const answers = await Promise.all(this.checks.map(async (dependency) => [dependency.name, await dependency.check()] as const));
    return Object.fromEntries(answers);
  }
}
