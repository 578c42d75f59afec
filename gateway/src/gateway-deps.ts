import type { identityV1, oauthV1, postsV1, totpV1 } from '@latchkey/contracts';
import type { ServiceClient } from '@latchkey/grpc-kit';
import type { Logger } from '@latchkey/telemetry';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from './config';
import type { CookieSettings } from './http/session-cookie';
import type { PostListCache } from './post-list-cache';
import type { PostPageView } from './post-view';
import type { RateLimiter } from './rate-limiter';
import type { SessionStore } from './session-store';

/** Everything routes use, built once at start and shared by every request. */
export interface GatewayDeps {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly identity: ServiceClient<typeof identityV1.IdentityServiceService>;
  readonly posts: ServiceClient<typeof postsV1.PostsServiceService>;
  readonly totp: ServiceClient<typeof totpV1.TotpServiceService>;
  readonly oauth: ServiceClient<typeof oauthV1.OAuthServiceService>;
  readonly sessions: SessionStore;
  readonly rateLimiter: RateLimiter;
  readonly newestPosts: PostListCache<PostPageView>;
  readonly registry: Registry;
  readonly cookie: CookieSettings;
  readonly allowedOrigins: ReadonlySet<string>;
  /** Whether Redis and every service answer, for /readyz. */
  readonly ready: () => Promise<boolean>;
}
