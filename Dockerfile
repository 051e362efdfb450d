# syntax=docker/dockerfile:1
# The engine as a container: `quiver serve` on port 9099, data in the /data volume, as the unprivileged user node.
#   docker build -t quiver-engine .
#   docker run -p 127.0.0.1:9099:9099 -v quiver-data:/data quiver-engine
# compose.yaml runs two of it behind HAProxy, with PostgreSQL and Redis.

# 1. Build the workspaces and pack them into the same tarball `npm run pack` writes.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/toolkits/package.json packages/toolkits/
COPY packages/sandbox/package.json packages/sandbox/
COPY packages/openapi/package.json packages/openapi/
COPY packages/engine/package.json packages/engine/
COPY packages/cli/package.json packages/cli/
COPY packages/console/package.json packages/console/
COPY packages/test-support/package.json packages/test-support/
# No install scripts: the compiler needs no native module, and the build happens below once the sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json README.md LICENSE ./
COPY packages packages
COPY scripts/pack.mjs scripts/build-dist.mjs scripts/
RUN npm run build && node scripts/pack.mjs

# 2. Install the package with production dependencies only; better-sqlite3 compiles here when no prebuilt binary is reachable.
FROM node:20-bookworm-slim AS install
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/quiver
COPY --from=build /src/pack/ /tmp/pack/
RUN echo '{"private": true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/pack/quiver-engine-*.tgz \
 && rm -rf node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target node_modules/better-sqlite3/deps \
 && npm cache clean --force

# 3. Run: no compiler, no npm cache, not root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    QUIVER_DATA_DIR=/data \
    PATH=/opt/quiver/node_modules/.bin:$PATH
COPY --from=install /opt/quiver /opt/quiver
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 9099
# Liveness: a process that serves is healthy, whatever its database does (a restart would not bring the
# database back). Orchestrators route traffic by readiness instead: GET /v1/ready.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9099/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["quiver"]
CMD ["serve", "--host", "0.0.0.0", "--port", "9099"]
