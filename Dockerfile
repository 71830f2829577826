# syntax=docker/dockerfile:1
# Build with dev dependencies; run with production dependencies and the build only.
# better-sqlite3 is a native module: it is compiled in a stage that has a toolchain, and only the
# compiled node_modules reach the runtime image.

FROM node:24-bookworm-slim AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./

FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY shared ./shared
COPY client ./client
COPY server ./server
RUN npm run build

# A second install rather than pruning the build stage: this layer depends on the lockfile only,
# so a source change rebuilds the app without reinstalling, and BuildKit runs it beside the build.
FROM toolchain AS prod-deps
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY public ./public
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "require('http').get({host:'127.0.0.1',port:process.env.PORT,path:'/healthz'},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
# Exec form: node runs as PID 1 and receives SIGTERM directly, so shutdown is graceful.
CMD ["node", "dist/server/index.js"]
