#!/usr/bin/env bash
# The kit's scheduled backups (compose.yml's services `backup` and `backup-postgres`): a dated copy
# of the database in FOLDER (BACKUP_DIR on the host) when the service starts and every
# BACKUP_INTERVAL after, keeping the last BACKUP_KEEP. After each copy that succeeded, the time goes
# to DATA_DIR/backup-last-success, which the site exports as backup_last_success_timestamp_seconds.
#   backup.sh sqlite FOLDER    `waitlist backup`: SQLite's online backup, consistent while the
#                              site writes (the site image, with the orgnote-data volume)
#   backup.sh postgres FOLDER  `pg_dump -Fc` of the database DATABASE_URL_FILE names (the
#                              postgres image, whose pg_dump is the server's own version)
# It ships in the kit rather than the site image because the postgres path runs it in the postgres
# image; both services mount this one file.
# A copy is written under a hidden name and renamed once whole, so a file named like a backup is a
# whole one; older copies are removed only once a new one is in place. SIGTERM stops a copy in
# progress, removes its partial file, and exits 0.
set -uo pipefail
export LC_ALL=C
umask 077

mode=${1:-}
folder=${2:-}
data=${DATA_DIR:-/data}
# Where the operator finds the copies, for the log: the container's own path means nothing there.
host_folder=${BACKUP_DIR:-$folder}
stamp_file=$data/backup-last-success
healthy=${TMPDIR:-/tmp}/backup-healthy
# After a failure, the next try comes this soon (or after BACKUP_INTERVAL, if that is shorter).
retry_seconds=300

say() { printf '%s backup: %s\n' "$(date -u +%FT%TZ)" "$*"; }
fail() { say "$*" >&2; }

case $mode in
  sqlite) extension=db ;;
  postgres) extension=dump ;;
  *)
    fail "usage: backup.sh sqlite|postgres FOLDER"
    exit 2
    ;;
esac
[ -n "$folder" ] || { fail "usage: backup.sh $mode FOLDER"; exit 2; }

# 90, 90s, 30m, 24h or 7d, in seconds.
seconds_of() {
  [[ $1 =~ ^([0-9]{1,7})([smhd]?)$ ]] || return 1
  local n=$((10#${BASH_REMATCH[1]}))
  case ${BASH_REMATCH[2]} in
    m) n=$((n * 60)) ;;
    h) n=$((n * 3600)) ;;
    d) n=$((n * 86400)) ;;
  esac
  ((n > 0)) && echo "$n"
}

interval=$(seconds_of "${BACKUP_INTERVAL:-24h}") || {
  fail "BACKUP_INTERVAL=${BACKUP_INTERVAL} is not a time: write 24h, 30m, 90s or 86400"
  exit 2
}
keep=${BACKUP_KEEP:-7}
[[ $keep =~ ^[1-9][0-9]{0,4}$ ]] || {
  fail "BACKUP_KEEP=$keep is not a number of copies: write 7, or any number from 1"
  exit 2
}
((interval < retry_seconds)) && retry_seconds=$interval

child=
stopping=
stop() {
  stopping=1
  [ -z "$child" ] || kill -TERM "$child" 2>/dev/null
}
trap stop TERM INT

# Runs a command in the background and waits for it: bash runs a trap only between commands, so
# SIGTERM is handled at once rather than after a copy or a sleep of BACKUP_INTERVAL.
run() {
  "$@" &
  child=$!
  [ -z "$stopping" ] || kill -TERM "$child" 2>/dev/null
  local status
  while :; do
    wait "$child"
    status=$?
    # A trap ends `wait` early (status 128 + the signal); the child may still be finishing.
    kill -0 "$child" 2>/dev/null || break
  done
  child=
  return "$status"
}

remove_partials() {
  rm -f -- "$folder"/.waitlist-*.partial* "$data/.backup-last-success.partial"
}

writable() {
  [ -d "$folder" ] && [ -w "$folder" ] && [ -x "$folder" ] && return 0
  fail "cannot write $host_folder (BACKUP_DIR, at $folder here) as uid $(id -u): on the host," \
    "as root: install -d -o $(id -u) -g $(id -g) -m 0700 $host_folder"
  return 1
}

# The password of DATABASE_URL_FILE's URL goes to a pgpass file in this container's /tmp, and
# pg_dump gets the URL without it: a command line is what `ps` on the host shows.
connect_postgres() {
  local url rest authority userinfo='' password=''
  if [ ! -r "${DATABASE_URL_FILE:-}" ]; then
    fail "cannot read DATABASE_URL_FILE (${DATABASE_URL_FILE:-unset}) as uid $(id -u)"
    return 1
  fi
  url=$(<"$DATABASE_URL_FILE")
  url=${url%"${url##*[![:space:]]}"}
  rest=${url#*://}
  authority=${rest%%/*}
  case $authority in *@*) userinfo=${authority%@*} ;; esac
  case $userinfo in *:*) password=${userinfo#*:} ;; esac
  conninfo=$url
  if [ -n "$userinfo" ]; then
    conninfo="${url%%://*}://${userinfo%%:*}@${authority##*@}${rest#"$authority"}"
  fi
  # Percent-decoded (%2F is /), then written as pgpass wants it (\ and : escaped).
  password=${password//\\/\\\\}
  printf -v password '%b' "${password//%/\\x}"
  password=${password//\\/\\\\}
  password=${password//:/\\:}
  export PGPASSFILE=${TMPDIR:-/tmp}/pgpass
  printf '*:*:*:*:%s\n' "$password" >"$PGPASSFILE"
}

# SQLite's online backup through the site's own CLI, which writes a hidden file and renames it.
copy_sqlite() {
  run waitlist backup "$folder/$1"
}

copy_postgres() {
  local partial=$folder/.$1.partial
  run pg_dump --format=custom --file="$partial" --dbname="$conninfo" || return 1
  sync "$partial" && mv "$partial" "$folder/$1" && sync "$folder" || return 1
  say "pg_dump wrote $host_folder/$1 ($(du -k "$folder/$1" | cut -f1) KiB)"
}

# Keeps the newest BACKUP_KEEP copies of this path (their names sort by date); other files of
# the folder, a copy renamed by hand among them, are left alone.
prune() {
  local file copies=() dated='^waitlist-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{6}Z\.[a-z]+$'
  for file in "$folder"/waitlist-*."$extension"; do
    [[ ${file##*/} =~ $dated ]] && copies+=("$file")
  done
  local excess=$((${#copies[@]} - keep))
  ((excess > 0)) || return 0
  local older=("${copies[@]:0:excess}")
  rm -f -- "${older[@]}" && say "kept the last $keep; removed ${older[*]##*/}"
}

stamp() {
  local partial=$data/.backup-last-success.partial
  if date +%s >"$partial" && mv -f "$partial" "$stamp_file"; then return 0; fi
  fail "the copy is in place, but $stamp_file cannot be written: OrgNoteBackupStale will fire"
  return 1
}

back_up() {
  local name
  name=waitlist-$(date -u +%Y-%m-%dT%H%M%SZ).$extension
  writable && "copy_$mode" "$name" || {
    remove_partials
    return 1
  }
  prune
  stamp
}

say "a copy every ${BACKUP_INTERVAL:-24h} into $host_folder, keeping the last $keep"
remove_partials
if [ "$mode" = postgres ]; then
  connect_postgres || exit 1
else
  # The site makes the database when it first starts; a copy before that has nothing to copy.
  [ -e "$data/waitlist.db" ] || say "waiting for the site to create $data/waitlist.db"
  while [ ! -e "$data/waitlist.db" ] && [ -z "$stopping" ]; do run sleep 1; done
fi
while [ -z "$stopping" ]; do
  if back_up; then
    : >"$healthy"
    delay=$interval
  else
    rm -f "$healthy"
    delay=$retry_seconds
    [ -n "$stopping" ] || fail "no copy this time; the next try in $delay s"
  fi
  [ -n "$stopping" ] || run sleep "$delay"
done
remove_partials
[ -z "${PGPASSFILE:-}" ] || rm -f "$PGPASSFILE"
say "stopped"
exit 0
