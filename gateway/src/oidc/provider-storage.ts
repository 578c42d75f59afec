import type { oidcV1 } from '@latchkey/contracts';
import type { RedisClient } from '@latchkey/db';
import type { Adapter, AdapterPayload, Configuration } from 'oidc-provider';
import { AppError } from '@latchkey/errors';
import { signingAlgorithms } from '@latchkey/config';
import { withOwnRequestContext, type RequestContext } from '@latchkey/grpc-kit';
import { sessionKey, userSessionsKey } from '@latchkey/session-keys';
import type { Logger } from '@latchkey/telemetry';
import type { OidcClient } from '../service-clients';
import type { ClientRegistry } from './client-registry';
import { requestContextOf } from './provider-context';
import { currentProviderContext, sourceReused } from './provider-runtime';
import { requestMemory, type RequestMemory } from './request-memory';

/** Models identity keeps (durable: a rotated refresh token must never come back); the rest live in Redis. */
const durableModels = new Set(['Grant', 'AuthorizationCode', 'DeviceCode', 'AccessToken', 'RefreshToken']);
/** What a token request consumes: the code or refresh token it exchanges. */
const exchangedModels = new Set(['AuthorizationCode', 'DeviceCode', 'RefreshToken']);
/** Redis for what losing costs a sign-in at most: interactions, the provider's view of a session, assertion ids. */
const ephemeralModels = new Set(['Interaction', 'Session', 'ReplayDetection']);

/** A token presented without its type is one of these two. */
const eitherTokenModel = new Map([
  ['AccessToken', 'RefreshToken'],
  ['RefreshToken', 'AccessToken'],
]);
const notFound: oidcV1.FindArtifactResponse = { found: false, payloadJson: '', grantPayloadJson: '', kind: '' };

const STORAGE_BUDGET_MS = 5_000;

export interface StorageDeps {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly oidc: OidcClient;
  readonly clients: ClientRegistry;
  readonly logger: Logger;
  /** The provider's issueRefreshToken: whether exchanging a code also issues a refresh token. */
  readonly issuesRefreshToken: NonNullable<Configuration['issueRefreshToken']>;
}

/**
 * The provider's storage (its Adapter interface, one instance per model):
 * grants, codes and tokens through identity (oidc.v1), interactions,
 * provider sessions and replay ids in the gateway's Redis, clients from
 * the registry (docs/decisions/0002-openid-provider.md).
 */
export function storageFor(deps: StorageDeps): new (name: string) => Adapter {
  return class ProviderStorage implements Adapter {
    constructor(private readonly name: string) {
      if (!durableModels.has(name) && !ephemeralModels.has(name) && name !== 'Client') {
        throw new Error(`the provider asked for storage of ${name}, which Latchkey does not enable`);
      }
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.name === 'Client') throw new Error('clients are registered through OIDC_CLIENTS or admin.v1');
      if (durableModels.has(this.name)) {
        const expiresAt = new Date(Date.now() + expiresIn * 1000);
        const sessionClient = await sessionClientOf(deps.clients, this.name, payload);
        const artifact = { kind: this.name, id, payloadJson: JSON.stringify(payload), expiresAt, sessionClient };
        const memory = tokenRequestMemory();
        if (this.name === 'Grant') memory?.grants.delete(id);
        // A token request that consumes a code or refresh token saves what it issues with it, in one call,
        // once it has saved the last token it issues: the access token, or the refresh token a code gets after it.
        if (memory?.source && (this.name === 'AccessToken' || this.name === 'RefreshToken')) {
          memory.held.push(artifact);
          const complete = this.name === 'RefreshToken' ? memory.source.kind !== 'RefreshToken' : !(await refreshTokenFollows(deps, memory.source));
          if (complete) await issueHeld(deps, memory);
          return;
        }
        await withContext(deps.logger, (context) => deps.oidc.saveArtifact(artifact, context));
        return;
      }
      // A browser signed in to nothing holds no authorization: an unauthenticated request stores no provider session
      // (the Latchkey session is the provider's, session-bridge.ts), only the state of a logout confirmation it asks for.
      if (this.name === 'Session' && !payload.accountId && !payload.state) return;
      // Two keys, two slots on a Redis Cluster: the record first, so that the uid never points at nothing.
      await deps.redis.set(this.key(id), JSON.stringify(payload), 'EX', Math.max(1, expiresIn));
      if (this.name === 'Session' && payload.uid) await deps.redis.set(this.key(`uid:${payload.uid}`), id, 'EX', Math.max(1, expiresIn));
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.name === 'Client') return deps.clients.storedMetadata(id);
      if (durableModels.has(this.name)) {
        const memory = requestMemory(currentProviderContext());
        const remembered = this.name === 'Grant' ? memory?.grants.get(id) : undefined;
        if (remembered !== undefined) return remembered === null ? undefined : (JSON.parse(remembered) as AdapterPayload);
        const withGrantAndAccount = memory !== undefined && this.name !== 'Grant';
        const found = await this.lookUp(id, memory, withGrantAndAccount);
        if (!found.found) return undefined;
        const payload = JSON.parse(found.payloadJson) as AdapterPayload;
        // The provider reads the token's grant and account next: identity answered them in the same call.
        if (memory && withGrantAndAccount) {
          if (typeof payload.grantId === 'string') memory.grants.set(payload.grantId, found.grantPayloadJson || null);
          if (typeof payload.accountId === 'string') memory.accounts.set(payload.accountId, found.account ?? null);
        }
        // A used refresh token presented again at the token endpoint: identity revokes the grant and mails the owner.
        if (this.name === 'RefreshToken' && payload.consumed && currentProviderContext()?.oidc?.route === 'token') {
          await this.consumeNow(id);
        }
        return payload;
      }
      const raw = await deps.redis.get(this.key(id));
      return raw ? (JSON.parse(raw) as AdapterPayload) : undefined;
    }

    /**
     * Introspection and revocation look a token up as an access token and
     * as a refresh token at once (oidc-provider's findToken, when the
     * client gives no token_type_hint): the first of the two asks identity
     * for either kind, and both read that one answer.
     */
    private lookUp(id: string, memory: RequestMemory | undefined, withGrantAndAccount: boolean): Promise<oidcV1.FindArtifactResponse> {
      const other = eitherTokenModel.get(this.name);
      const route = currentProviderContext()?.oidc?.route;
      if (!memory || !other || (route !== 'introspection' && route !== 'revocation')) {
        return withContext(deps.logger, (context) => deps.oidc.findArtifact({ kind: this.name, id, userCode: '', withGrantAndAccount, otherKinds: [] }, context));
      }
      let answer = memory.tokenLookups.get(id);
      if (!answer) {
        answer = withContext(deps.logger, (context) => deps.oidc.findArtifact({ kind: this.name, id, userCode: '', withGrantAndAccount, otherKinds: [other] }, context));
        memory.tokenLookups.set(id, answer);
      }
      return answer.then((found) => (found.found && found.kind === this.name ? found : notFound));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const found = await withContext(deps.logger, (context) =>
        deps.oidc.findArtifact({ kind: this.name, id: '', userCode, withGrantAndAccount: false, otherKinds: [] }, context),
      );
      return found.found ? (JSON.parse(found.payloadJson) as AdapterPayload) : undefined;
    }

    /**
     * The provider's session by its uid, which is the Latchkey session's
     * public id: found only while that Latchkey session lives.
     */
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await deps.redis.get(this.key(`uid:${uid}`));
      const raw = id ? await deps.redis.get(this.key(id)) : null;
      if (!raw) return undefined;
      const payload = JSON.parse(raw) as AdapterPayload;
      if (!payload.accountId) return undefined;
      const tokenHash = await deps.redis.hget(userSessionsKey(deps.prefix, payload.accountId), uid);
      const live = tokenHash ? await deps.redis.exists(sessionKey(deps.prefix, tokenHash)) : 0;
      return live ? payload : undefined;
    }

    async consume(id: string): Promise<void> {
      if (durableModels.has(this.name)) {
        const memory = exchangedModels.has(this.name) ? tokenRequestMemory() : undefined;
        // Consumed with the tokens it is exchanged for, in one transaction (IssueArtifacts), or not at all.
        if (memory) {
          memory.source = { kind: this.name, id };
          return;
        }
        await this.consumeNow(id);
        return;
      }
      const raw = await deps.redis.get(this.key(id));
      if (!raw) return;
      const payload = { ...(JSON.parse(raw) as AdapterPayload), consumed: Math.floor(Date.now() / 1000) };
      await deps.redis.set(this.key(id), JSON.stringify(payload), 'KEEPTTL', 'XX');
    }

    private async consumeNow(id: string): Promise<void> {
      try {
        await withContext(deps.logger, (context) => deps.oidc.consumeArtifact({ kind: this.name, id }, context));
      } catch (error) {
        if (error instanceof AppError && error.code === 'oidc:token_reused') throw sourceReused(this.name);
        throw error;
      }
    }

    async destroy(id: string): Promise<void> {
      if (durableModels.has(this.name)) {
        if (this.name === 'Grant') requestMemory(currentProviderContext())?.grants.set(id, null);
        await withContext(deps.logger, (context) => deps.oidc.destroyArtifact({ kind: this.name, id }, context));
        return;
      }
      await deps.redis.del(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // The provider asks every token model in turn, always AccessToken among them: identity deletes the grant's
      // codes and tokens of every model in one call, so the others have nothing left to do.
      if (this.name !== 'AccessToken') return;
      requestMemory(currentProviderContext())?.grants.delete(grantId);
      await withContext(deps.logger, (context) => deps.oidc.revokeGrantTokens({ grantId }, context));
    }

    private key(id: string): string {
      return `${deps.prefix}oidc:${this.name}:${id}`;
    }
  };
}

/**
 * Consumes the request's source and saves the tokens held for it, in one
 * transaction (oidc.v1 IssueArtifacts). Also called once the token endpoint
 * has answered, should anything still be held (provider-storage's holding
 * and the provider's order of saves are meant to leave nothing).
 */
export async function issueHeld(deps: Pick<StorageDeps, 'oidc' | 'logger'>, memory: RequestMemory): Promise<void> {
  const { source } = memory;
  const artifacts = memory.held.splice(0);
  memory.source = undefined;
  if (!source) return;
  await withContext(deps.logger, (context) => deps.oidc.issueArtifacts({ source, artifacts }, context)).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'oidc:token_reused') throw sourceReused(source.kind);
    throw error;
  });
}

/** Whether the code being exchanged gets a refresh token after its access token: the provider's own rule, asked the same way. */
async function refreshTokenFollows(deps: StorageDeps, source: { kind: string }): Promise<boolean> {
  const ctx = currentProviderContext();
  const code = source.kind === 'AuthorizationCode' ? ctx?.oidc.entities.AuthorizationCode : source.kind === 'DeviceCode' ? ctx?.oidc.entities.DeviceCode : undefined;
  if (!ctx || !code || !ctx.oidc.client) return false;
  return deps.issuesRefreshToken(ctx, ctx.oidc.client, code);
}

/** The memory of the token request being served, if one is. */
function tokenRequestMemory() {
  const ctx = currentProviderContext();
  return ctx?.oidc?.route === 'token' ? requestMemory(ctx) : undefined;
}

/** For a code that names a session: how its client hears that the session ended. */
async function sessionClientOf(clients: ClientRegistry, model: string, payload: AdapterPayload) {
  if ((model !== 'AuthorizationCode' && model !== 'DeviceCode') || !(payload.sid ?? payload.sessionUid) || !payload.clientId) return undefined;
  return sessionClientFor(clients, payload.clientId);
}

/** How a client hears that a session that signed in to it ended, as it is registered. */
export async function sessionClientFor(clients: ClientRegistry, clientId: string): Promise<oidcV1.SessionClient | undefined> {
  const client = await clients.metadata(clientId);
  if (!client) return undefined;
  return {
    backchannelLogoutUri: typeof client.backchannel_logout_uri === 'string' ? client.backchannel_logout_uri : '',
    sessionRequired: client.backchannel_logout_session_required === true,
    signingAlg: signingAlgorithms.find((alg) => alg === client.id_token_signed_response_alg) ?? 'RS256',
  };
}

/**
 * Runs a storage call under the HTTP request's context when the provider
 * is serving one (its deadline and request id), else under a context of
 * its own.
 */
async function withContext<T>(logger: Logger, call: (context: RequestContext) => Promise<T>): Promise<T> {
  const current = requestContextOf(currentProviderContext()?.req);
  if (current) return call(current);
  return withOwnRequestContext(logger, STORAGE_BUDGET_MS, call);
}
