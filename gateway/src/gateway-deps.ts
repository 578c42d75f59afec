import type { Logger } from '@latchkey/telemetry';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from './config';
import type { CredentialLimits } from './limits/credential-limits';
import type { OrganizationLimits } from './limits/organization-limits';
import type { UsageLimits } from './limits/usage-limits';
import type { PostListCache } from './posts/post-list-cache';
import type { PostPageView } from './posts/post-view';
import type { OpenIdProvider } from './oidc/openid-provider';
import type { GatewayClients } from './service-clients';
import type { CookieSettings } from './sessions/session-cookie';
import type { SessionStore } from './sessions/session-store';
import type { ServiceTokens } from './tokens/service-tokens';
import type { DependencyStatus } from './dependency-status';

/**
 * Everything the gateway builds once at start: a client of each service it
 * calls (by proto package: `identity`, `oidc`, ...), and the rest below.
 * The composition root hands each route plugin only the parts it declares.
 */
export interface GatewayDeps extends GatewayClients {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly sessions: SessionStore;
  readonly tokens: ServiceTokens;
  readonly limits: CredentialLimits;
  readonly usage: UsageLimits;
  readonly organizationLimits: OrganizationLimits;
  readonly newestPosts: PostListCache<PostPageView>;
  readonly registry: Registry;
  readonly cookie: CookieSettings;
  readonly allowedOrigins: ReadonlySet<string>;
  /** Builds the OpenID Provider when OIDC_ENABLED (docs/oidc.md); undefined when it is off. */
  readonly openIdProvider: (() => Promise<OpenIdProvider>) | undefined;
  /**
   * Whether this gateway takes traffic, for /readyz: until it drains. It
   * does not weigh its dependencies, so that one of them down fails only
   * the routes that need it (docs/operations.md, "Probes").
   */
  readonly ready: () => boolean;
  /** Whether Redis and every unit answer, for /dependencies and `dependency_up`. */
  readonly dependencies: DependencyStatus;
}
