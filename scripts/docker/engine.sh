#!/usr/bin/env bash
# A private Docker engine for the image test: its own data root, run folder, socket and pidfile,
# so it never meets a Docker the machine may run. It leaves the host's network alone
# (--iptables=false --bridge=none): containers use the host network or user-defined networks.
# Images persist in the data root between runs, so a second run reuses the base images.
#   scripts/docker/engine.sh start|stop|status
# Then: DOCKER_HOST=unix:///run/orgnote-ci-docker.sock docker ...
set -euo pipefail

data_root=${ORGNOTE_DOCKER_DATA_ROOT:-/var/lib/orgnote-ci-docker}
exec_root=/run/orgnote-ci-docker
socket=/run/orgnote-ci-docker.sock
pidfile=/run/orgnote-ci-docker.pid
log=${ORGNOTE_DOCKER_LOG:-/tmp/orgnote-ci-docker.log}
export DOCKER_HOST="unix://$socket"

running() {
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start() {
  if running && docker version >/dev/null 2>&1; then
    echo "engine: already running (pid $(cat "$pidfile"))"
    return
  fi
  mkdir -p "$data_root" "$exec_root"
  # dockerd starts and stops a containerd of its own under the run folder.
  setsid dockerd \
    --data-root "$data_root" --exec-root "$exec_root" \
    -H "unix://$socket" --pidfile "$pidfile" \
    --iptables=false --ip6tables=false --bridge=none --ip-masq=false \
    >>"$log" 2>&1 </dev/null &
  for _ in $(seq 1 150); do
    if docker version >/dev/null 2>&1; then
      echo "engine: running (pid $(cat "$pidfile")), DOCKER_HOST=$DOCKER_HOST"
      return
    fi
    sleep 0.2
  done
  echo "engine: dockerd did not answer within 30 s; its log ($log) ends with:" >&2
  tail -n 20 "$log" >&2
  exit 1
}

stop() {
  running || { echo "engine: not running"; return; }
  local pid
  pid=$(cat "$pidfile")
  # Containers are stopped first, so none is left to the engine's own shutdown timeout.
  docker ps -q | xargs -r docker stop -t 10 >/dev/null 2>&1 || true
  kill -TERM "$pid"
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || { echo "engine: stopped"; return; }
    sleep 0.2
  done
  echo "engine: dockerd ignored SIGTERM for 30 s; killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if running; then echo "engine: running"; else echo "engine: stopped"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
