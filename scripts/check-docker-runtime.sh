#!/usr/bin/env bash
# No Docker engine runs on our machines, so this replays the Dockerfile's runtime stage by hand
# in a clean folder: production install of the runtime file set, start as in CMD, request pages.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
port=${PORT:-3917}
pid= # set once the server starts; the trap may run before that
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

(cd "$root" && npx tsx scripts/build.ts --if-stale) # an old dist may lack the CLI bundle
cp "$root/package.json" "$root/package-lock.json" "$work/"
(cd "$work" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
cp -r "$root/dist" "$work/dist"
cp -r "$root/public" "$work/public"
mkdir -p "$work/data"

(cd "$work" && NODE_ENV=production PORT=$port HOST=127.0.0.1 DATA_DIR="$work/data" node dist/server/index.js) &
pid=$!
for _ in $(seq 1 50); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done

echo "runtime node_modules: $(du -sh "$work/node_modules" | cut -f1)"
echo "GET /healthz -> $(curl -s "http://127.0.0.1:$port/healthz")"
for path in / /activate /missing; do
  echo "GET $path -> $(curl -s -o /dev/null -w '%{http_code} %{content_type} %{size_download}B' "http://127.0.0.1:$port$path")"
done
curl -s "http://127.0.0.1:$port/" | grep -q 'Join wait list' && echo "page content: ok"
echo "POST /api/subscriptions -> $(curl -s -w ' %{http_code}' -F email=docker@example.org -F description=smoke "http://127.0.0.1:$port/api/subscriptions")"
echo "CLI count (node dist/server/waitlist.js) -> $(cd "$work" && DATA_DIR="$work/data" node dist/server/waitlist.js count)"
echo "CLI invite (no SMTP_URL: an .eml file) ->"
(cd "$work" && DATA_DIR="$work/data" SITE_URL=https://orgnote.example node dist/server/waitlist.js invite docker@example.org)
ls "$work/data/mail/"*.eml >/dev/null && echo "invitation written: $(ls "$work/data/mail")"
kill -TERM "$pid"; wait "$pid" && echo "SIGTERM: exit 0"

# The same image on PostgreSQL: nothing more than DATABASE_URL (skipped where no server binaries are).
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  # A coprocess: it runs until we close its stdin, and hands us the URL of a fresh database.
  coproc PG { cd "$root" && exec node --import tsx scripts/postgres-sink.ts; }
  read -r database_url <&"${PG[0]}"
  (cd "$work" && NODE_ENV=production PORT=$port HOST=127.0.0.1 DATA_DIR="$work/data-unused" DATABASE_URL="$database_url" node dist/server/index.js) &
  pid=$!
  for _ in $(seq 1 50); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
  echo "PostgreSQL: GET /readyz -> $(curl -s "http://127.0.0.1:$port/readyz")"
  echo "PostgreSQL: POST /api/subscriptions -> $(curl -s -w ' %{http_code}' -F email=docker@example.org "http://127.0.0.1:$port/api/subscriptions")"
  echo "PostgreSQL: CLI count -> $(cd "$work" && DATABASE_URL="$database_url" node dist/server/waitlist.js count)"
  kill -TERM "$pid"; wait "$pid" && echo "PostgreSQL: SIGTERM: exit 0"
  pg_pid=$PG_PID
  eval "exec ${PG[1]}>&-"
  wait "$pg_pid" 2>/dev/null || true
fi
