import type { ssoV1 } from '@latchkey/contracts';
import { AppError } from '@latchkey/errors';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { requireOpaque, requireUserId } from '../input-rules';
import { requireReturnPath } from './return-path';
import { serviceProviderMetadataXml } from './service-provider-metadata';
import { serviceProviderUrls } from './service-provider-urls';
import { findSsoConnection } from './sso-connection-store';
import { createConnection, deleteConnection, deleteOrganizationConnections, getConnection, listConnections, updateConnection } from './sso-connections';
import type { SsoDeps } from './sso-deps';
import {
  attributeMappingFromMessage,
  connectionTypeFromMessage,
  groupRolesFromMessage,
  oidcInputFromMessage,
  requireConnectionId,
  samlInputFromMessage,
  toConnectionMessage,
  toSignedInMessage,
} from './sso-messages';
import { completeOidc, completeSaml, discoverSignIn, startSignIn } from './sso-sign-in';

type SsoHandlers = ServiceHandlers<typeof ssoV1.SsoServiceService>;

const MAX_EMAIL_LENGTH = 320;

function scopeOf(request: { actorUserId: string; organizationId: string }): { actorUserId: string; organizationId: string } {
  return { actorUserId: requireUserId(request.actorUserId, 'actor_user_id'), organizationId: requireUserId(request.organizationId, 'organization_id') };
}

/**
 * One thin function per RPC of sso.v1: unpack and check, call the
 * operation, shape the reply. Without SSO configured (SSO_PUBLIC_URL and
 * SSO_ENCRYPTION_KEY unset) there can be no connection: every call answers
 * sso:connection_not_found, except the clean-up of a deleted organisation,
 * which needs only the database and identity.
 */
export function ssoHandlers(configured: SsoDeps | undefined, cleanup: Pick<SsoDeps, 'pool' | 'identity'>): SsoHandlers {
  const ready = (): SsoDeps => {
    if (!configured) throw new AppError('sso:connection_not_found', 'Enterprise SSO is not configured on this installation.');
    return configured;
  };
  const message = (connection: Parameters<typeof toConnectionMessage>[0]): ssoV1.Connection => toConnectionMessage(connection, ready().publicUrl);
  return {
    async createConnection(request, context) {
      const deps = ready();
      const input = {
        ...scopeOf(request),
        type: connectionTypeFromMessage(request.type),
        saml: samlInputFromMessage(request.saml),
        oidc: oidcInputFromMessage(request.oidc),
        defaultRole: request.defaultRole === '' ? 'member' : request.defaultRole,
        attributeMapping: attributeMappingFromMessage(request.attributeMapping) ?? {},
        groupRoles: groupRolesFromMessage(request.groupRoles),
      };
      return { connection: message(await createConnection(deps, input, context)) };
    },
    async listConnections(request, context) {
      const deps = ready();
      return { connections: (await listConnections(deps, scopeOf(request), context)).map(message) };
    },
    async getConnection(request, context) {
      const deps = ready();
      const scope = { ...scopeOf(request), connectionId: requireConnectionId(request.connectionId) };
      return { connection: message(await getConnection(deps, scope, context)) };
    },
    async updateConnection(request, context) {
      const deps = ready();
      const input = {
        ...scopeOf(request),
        connectionId: requireConnectionId(request.connectionId),
        saml: samlInputFromMessage(request.saml),
        oidc: oidcInputFromMessage(request.oidc),
        defaultRole: request.defaultRole,
        attributeMapping: attributeMappingFromMessage(request.attributeMapping),
        groupRoles: request.replaceGroupRoles ? groupRolesFromMessage(request.groupRoles) : undefined,
      };
      return { connection: message(await updateConnection(deps, input, context)) };
    },
    async deleteConnection(request, context) {
      const deps = ready();
      await deleteConnection(deps, { ...scopeOf(request), connectionId: requireConnectionId(request.connectionId) }, context);
      return {};
    },
    async getServiceProviderMetadata(request) {
      const deps = ready();
      const connection = await findSsoConnection(deps.pool, requireConnectionId(request.connectionId));
      if (connection?.type !== 'saml') throw new AppError('sso:connection_not_found');
      return { metadataXml: serviceProviderMetadataXml(serviceProviderUrls(deps.publicUrl, connection.id), connection.saml.spKeyPair?.certificate) };
    },
    async startSignIn(request, context) {
      const deps = ready();
      const email = request.email.trim();
      const organizationSlug = request.organizationSlug.trim();
      if ((email === '') === (organizationSlug === '')) {
        throw AppError.validation([{ field: 'email', message: 'give exactly one of email and org_slug' }]);
      }
      if (email.length > MAX_EMAIL_LENGTH) throw AppError.validation([{ field: 'email', message: `must be at most ${MAX_EMAIL_LENGTH} characters` }]);
      const browserBinding = requireOpaque(request.browserBinding, 'browser_binding');
      const returnTo = requireReturnPath(request.returnTo ?? '');
      const started = await startSignIn(deps, { email, organizationSlug, browserBinding, returnTo }, context);
      return { authorizationUrl: started.url, connectionId: started.connectionId, expiresAt: started.expiresAt };
    },
    async discoverSignIn(request, context) {
      const email = request.email.trim();
      if (email === '' || email.length > MAX_EMAIL_LENGTH) throw AppError.validation([{ field: 'email', message: `must be 1-${MAX_EMAIL_LENGTH} characters` }]);
      // No connection can exist without SSO configured: nothing to find.
      return configured ? discoverSignIn(configured, email, context) : { sso: false, enforced: false };
    },
    async completeSaml(request, context) {
      const deps = ready();
      const input = {
        connectionId: requireConnectionId(request.connectionId),
        // Checked against the size limit by the validation itself, which answers sso:response_invalid.
        samlResponse: request.samlResponse,
        // Empty when the browser holds none: only an allowed IdP-initiated response can pass then.
        browserBinding: request.browserBinding,
      };
      return { signedIn: toSignedInMessage(await completeSaml(deps, input, context)) };
    },
    async completeOidc(request, context) {
      const deps = ready();
      const input = {
        connectionId: requireConnectionId(request.connectionId),
        code: requireOpaque(request.code, 'code'),
        state: requireOpaque(request.state, 'state'),
        browserBinding: request.browserBinding,
      };
      return { signedIn: toSignedInMessage(await completeOidc(deps, input, context)) };
    },
    async deleteOrganizationConnections(request, context) {
      return deleteOrganizationConnections(cleanup, requireUserId(request.organizationId, 'organization_id'), context);
    },
  };
}
