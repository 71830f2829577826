#!/usr/bin/env bash
# Builds the release image of this checkout: ORGNOTE_IMAGE (orgnote-site) tagged with package.json's
# version, the commit passed in (build_info, /healthz and `waitlist --version` name both), and the
# OCI labels a registry and `docker inspect` show: version, revision, source, licenses, created.
#   scripts/release.sh [--push] [-- <more docker build options>]
# .ci/run runs it through the image test's global setup; .github/workflows/release.yml runs it on a
# version tag (v0.2.0) and pushes. CHANGELOG.md has a section for each version.
set -euo pipefail
cd "$(dirname "$0")/.."

push=false
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --push) push=true ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: $0 [--push] [-- <docker build options>]" >&2; exit 2 ;;
  esac
  shift
done

image=${ORGNOTE_IMAGE:-orgnote-site}
version=$(node -p 'require("./package.json").version')
license=$(node -p 'require("./package.json").license')
revision=$(git rev-parse HEAD)
# Where the source is: given (the hosted CI names its repository), or the checkout's origin
# without any user or token in it.
source=${ORGNOTE_SOURCE:-$(git remote get-url origin 2>/dev/null | sed -E 's#//[^/@]*@#//#' || true)}

if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "release: package.json's version \"$version\" is not a semantic version" >&2
  exit 1
fi
if ! grep -q "^## \[$version\]" CHANGELOG.md; then
  echo "release: CHANGELOG.md has no section \"## [$version]\"" >&2
  exit 1
fi
# A tag names the release it builds: v0.2.0 must be package.json's 0.2.0.
if [ -n "${RELEASE_TAG:-}" ] && [ "$RELEASE_TAG" != "v$version" ]; then
  echo "release: the tag $RELEASE_TAG is not v$version, package.json's version" >&2
  exit 1
fi

labels=(
  --label "org.opencontainers.image.title=orgnote-site"
  --label "org.opencontainers.image.version=$version"
  --label "org.opencontainers.image.revision=$revision"
  --label "org.opencontainers.image.licenses=$license"
  --label "org.opencontainers.image.created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
)
[ -z "$source" ] || labels+=(--label "org.opencontainers.image.source=$source")

echo "release: building $image:$version (${revision:0:7})"
docker build --build-arg "SOURCE_COMMIT=${revision:0:7}" --build-arg "ORGNOTE_VERSION=$version" \
  "${labels[@]}" --tag "$image:$version" ${extra[@]+"${extra[@]}"} .
if $push; then docker push "$image:$version"; fi
echo "release: $image:$version"
