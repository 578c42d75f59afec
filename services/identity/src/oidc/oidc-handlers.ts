import type { oidcV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import type { IdentityDeps } from '../identity-deps';
import {
  type ArtifactToSave,
  consumeArtifact,
  destroyArtifact,
  findArtifact,
  findUserGrant,
  issueArtifacts,
  listUserGrants,
  revokeGrantTokens,
  revokeUserGrants,
  saveArtifact,
} from './oidc-artifacts';
import { findStoredClient } from './oidc-clients';
import { approveDeviceCode, denyDeviceCode } from './device-approval';
import { endSessions, type SessionClientSettings } from './oidc-session-clients';

type OidcHandlers = ServiceHandlers<typeof oidcV1.OidcServiceService>;

function sessionClientSettings(sessionClient: oidcV1.SessionClient | undefined): SessionClientSettings | undefined {
  return (
    sessionClient && {
      backchannelLogoutUri: sessionClient.backchannelLogoutUri,
      sessionRequired: sessionClient.sessionRequired,
      signingAlg: sessionClient.signingAlg,
    }
  );
}

function artifactToSave({ kind, id, payloadJson, expiresAt, sessionClient }: oidcV1.SaveArtifactRequest): ArtifactToSave {
  return { kind, id, payloadJson, expiresAt: expiresAt ?? new Date(), sessionClient: sessionClientSettings(sessionClient) };
}

/** oidc.v1, one thin function per RPC (docs/oidc.md). */
export function oidcHandlers(deps: IdentityDeps): OidcHandlers {
  return {
    async saveArtifact(request) {
      await saveArtifact(deps, artifactToSave(request));
      return {};
    },
    async findArtifact(request) {
      const found = await findArtifact(deps.pool, request);
      if (!found) return { found: false, payloadJson: '', grantPayloadJson: '', kind: '' };
      return {
        found: true,
        kind: found.kind,
        payloadJson: JSON.stringify(found.payload),
        grantPayloadJson: found.grantPayload ? JSON.stringify(found.grantPayload) : '',
        account: found.account,
      };
    },
    async issueArtifacts({ source, artifacts }, context) {
      await issueArtifacts(deps, { source, artifacts: artifacts.map(artifactToSave) }, context);
      return {};
    },
    async consumeArtifact(request, context) {
      await consumeArtifact(deps, request, context);
      return {};
    },
    async destroyArtifact(request) {
      await destroyArtifact(deps.pool, request);
      return {};
    },
    async revokeGrantTokens({ grantId }) {
      await revokeGrantTokens(deps.pool, grantId);
      return {};
    },
    async findUserGrant({ userId, clientId, withGrantAndAccount }) {
      const found = await findUserGrant(deps.pool, userId, clientId, withGrantAndAccount);
      return {
        found: found.grantId !== undefined,
        grantId: found.grantId ?? '',
        grantPayloadJson: found.grantPayload ? JSON.stringify(found.grantPayload) : '',
        account: found.account,
      };
    },
    async listUserGrants({ userId }) {
      const grants = await listUserGrants(deps.pool, userId);
      return { grants };
    },
    async revokeUserGrants({ userId, clientId }, context) {
      await revokeUserGrants(deps, userId, clientId, context);
      return {};
    },
    async endSessions({ userId, sessionIds, keptSessionId, endedAt }, context) {
      const queued = await endSessions(deps, { userId, sessionIds, keptSessionId, endedAt: endedAt ?? new Date() }, context);
      return { queued };
    },
    async approveDeviceCode({ sessionClient, ...approval }, context) {
      await approveDeviceCode(deps, { ...approval, sessionClient: sessionClientSettings(sessionClient) }, context);
      return {};
    },
    async denyDeviceCode({ userCode }, context) {
      await denyDeviceCode(deps, userCode, context);
      return {};
    },
    async getClient({ clientId }) {
      const client = await findStoredClient(deps.pool, clientId);
      return client
        ? { found: true, metadataJson: JSON.stringify(client.metadata), secretHash: client.secretHash ?? '' }
        : { found: false, metadataJson: '', secretHash: '' };
    },
  };
}
