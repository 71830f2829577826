# syntax=docker/dockerfile:1
# Build with dev dependencies; run with production dependencies and the build only.
# The native modules (better-sqlite3, @node-rs/argon2) ship prebuilt N-API binaries inside their
# packages: no toolchain, and nothing downloaded but packages. better-sqlite3 still carries a
# binding.gyp that `npm ci` would compile (a lockfile does not keep its gypfile: false), hence
# --ignore-scripts: no dependency the build or the runtime uses needs its install script.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY shared ./shared
COPY client ./client
COPY server ./server
# The commit the image is built from, for build_info, /healthz and `waitlist --version`: given
# (scripts/release.sh), or read from the few files of .git the context has (.dockerignore; a
# context without .git copies package.json alone). None of it reaches the runtime stage.
ARG SOURCE_COMMIT=""
COPY package.json .gi[t] ./.git/
# The tag compose.build.yml gives the image (ORGNOTE_VERSION): it must be this checkout's version.
ARG ORGNOTE_VERSION=""
RUN node -e 'const v = require("./package.json").version, t = process.env.ORGNOTE_VERSION; \
  if (t && t !== v) { \
    console.error(`ORGNOTE_VERSION=${t}, but this checkout is ${v}: ` + \
      `check out v${t}, or set ORGNOTE_VERSION=${v} in .env`); \
    process.exit(1); }'
# The runtime loads no source maps, and the server's would carry the sources into the image.
RUN npm run build && find dist -name '*.map' -delete

# A second install rather than pruning the build stage: this layer depends on the lockfile only,
# so a source change rebuilds the app without reinstalling.
FROM node:24-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

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
# `docker exec <container> waitlist ...`: the CLI as docs/operating.md writes it.
COPY scripts/docker/waitlist /usr/local/bin/waitlist
# SQLite, mail files and backups go to /data. No VOLUME: the operator mounts one there
# (-v orgnote-data:/data); a VOLUME would give each compose replica an anonymous volume of its own.
# 0700: a new named volume takes the owner and mode of the folder it is mounted over.
RUN install -d -o node -g node -m 0700 /data
USER node
EXPOSE 3000
# The start period covers a start that waits up to 30 s for PostgreSQL (DATABASE_CONNECT_SECONDS).
HEALTHCHECK --interval=30s --timeout=3s --start-period=45s --retries=3 \
  CMD ["node", "-e", "require('http').get({host:'127.0.0.1',port:process.env.PORT,path:'/healthz'},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
# Exec form: node runs as PID 1 and receives SIGTERM directly, so shutdown is graceful.
# Node's options: the same as npm start's (scripts/lib/launch/server.ts, SITE_NODE_FLAGS).
CMD ["node", "--max-semi-space-size=8", "dist/server/index.js"]
