import type { scimV1 } from '@latchkey/contracts';
import type { ServiceHandlers } from '@latchkey/grpc-kit';
import { createToken, listTokens, revokeToken } from './scim-tokens';
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser, type ScimDeps } from './scim-users';
import { createGroup, deleteGroup, getGroup, listGroupRoles, listGroups, mapGroupRole, patchGroup } from './scim-groups';

/** One thin function per RPC of scim.v1 ScimService: the rules are the operations'. */
export function scimHandlers(deps: ScimDeps): ServiceHandlers<typeof scimV1.ScimServiceService> {
  return {
    async createToken(request, context) {
      return createToken(deps.pool, request, context);
    },
    async listTokens(request, context) {
      return { tokens: await listTokens(deps.pool, request, context) };
    },
    async revokeToken(request, context) {
      await revokeToken(deps.pool, request, context);
      return {};
    },
    async mapGroupRole(request, context) {
      return { group: await mapGroupRole(deps, request, context) };
    },
    async listGroupRoles(request, context) {
      return listGroupRoles(deps, request, context);
    },
    async createUser(request, context) {
      return { user: await createUser(deps, request, context) };
    },
    async getUser(request) {
      return { user: await getUser(deps, request) };
    },
    async listUsers(request) {
      return listUsers(deps, request);
    },
    async replaceUser(request, context) {
      return { user: await replaceUser(deps, request, context) };
    },
    async patchUser(request, context) {
      return { user: await patchUser(deps, request, context) };
    },
    async deleteUser(request, context) {
      await deleteUser(deps, request, context);
      return {};
    },
    async createGroup(request, context) {
      return { group: await createGroup(deps, request, context) };
    },
    async getGroup(request) {
      return { group: await getGroup(deps, request) };
    },
    async listGroups(request) {
      return listGroups(deps, request);
    },
    async patchGroup(request, context) {
      return { group: await patchGroup(deps, request, context) };
    },
    async deleteGroup(request, context) {
      await deleteGroup(deps, request, context);
      return {};
    },
  };
}
