#!/bin/sh
# Runs the shared toml-test suite against build/toml-decoder.
#   run-toml-test.sh SOURCE_ROOT DECODER
# The suite and its runner sit beside the repository, in ../shared. In a
# git worktree, "the repository" is also the main checkout, so its
# ../shared is tried next. A clone without them (e.g. in CI) skips: exit 77
# is Meson's SKIP.
set -u
source_root=$1
decoder=$2
for shared in "$source_root/../shared" \
    "$(git -C "$source_root" rev-parse --path-format=absolute \
    --git-common-dir 2>/dev/null)/../../shared"; do
	if [ -d "$shared/toml-test" ] && [ -x "$shared/tools/toml-test-run" ]; then
		exec "$shared/tools/toml-test-run" "$decoder" "$shared/toml-test"
	fi
done
echo "toml-test: $source_root/../shared/toml-test or its runner is missing; skipping"
exit 77
