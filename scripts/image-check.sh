#!/usr/bin/env bash
# Checks, without a container engine, what the Dockerfile's image needs:
# builds operator, server and ossiectl with the Dockerfile's flags, runs each
# one's version command, and checks the shared libraries they load are the
# ones the runtime image (gcr.io/distroless/cc-debian12) ships, at versions
# it has: glibc <= RUNTIME_GLIBC, libstdc++ symbol versions <= RUNTIME_GLIBCXX.
# This machine is Debian 12 like the builder image, so what links here is
# what links there. Docs: docs/install.md ("The image").
#
# Environment: GO (default go), BIN (default bin), VERSION (default dev),
# RUNTIME_GLIBC (default 2.36), RUNTIME_GLIBCXX (default 3.4.30).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
GO=${GO:-go}
# The duckdb_arrow tag, as the Makefile sets it, unless GOFLAGS names tags:
# DuckDB answers read as Arrow record batches (docs/development.md).
case " ${GOFLAGS:-} " in *" -tags="*) ;; *) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=duckdb_arrow" ;; esac
BIN=${BIN:-bin}
VERSION=${VERSION:-dev}
RUNTIME_GLIBC=${RUNTIME_GLIBC:-2.36}
RUNTIME_GLIBCXX=${RUNTIME_GLIBCXX:-3.4.30}
out="$BIN/image"
mkdir -p "$out"

# Keep in step with the Dockerfile's build stage (its GOFLAGS carry the same tag).
ldflags="-s -w -X github.com/ossie-dev/ossie/internal/buildinfo.Version=$VERSION -X github.com/ossie-dev/ossie/ossiectl.Version=$VERSION"

# Libraries distroless/cc-debian12 provides (glibc, libgcc, libstdc++).
allowed='^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|libresolv\.so\.2)$'

# newest VERSION_PREFIX_x.y.z symbol version the binary needs, e.g. GLIBC_2.34.
newest() { objdump -T "$1" | grep -o "$2[0-9.]*" | sed "s/^$2//" | sort -V | tail -n1; }
# le A B: version A <= B.
le() { [[ $(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1) == "$1" ]]; }

fail=0
for b in operator server ossiectl; do
	CGO_ENABLED=1 "$GO" build -trimpath -ldflags "$ldflags" -o "$out/$b" "./cmd/$b"
	if [[ $b == ossiectl ]]; then v=$("$out/$b" version); else v=$("$out/$b" --version); fi
	v=${v%%$'\n'*}
	if [[ $v != "$b $VERSION" ]]; then
		echo "image-check: $b: version printed \"$v\", want \"$b $VERSION\"" >&2
		fail=1
	fi
	if ldd "$out/$b" | grep -q 'not found'; then
		echo "image-check: $b: unresolved libraries:" >&2
		ldd "$out/$b" | grep 'not found' >&2
		fail=1
	fi
	while read -r lib; do
		if ! [[ $lib =~ $allowed ]]; then
			echo "image-check: $b needs $lib, which distroless/cc does not ship" >&2
			fail=1
		fi
	done < <(ldd "$out/$b" | awk '{print $1}' | xargs -n1 basename)
	glibc=$(newest "$out/$b" GLIBC_)
	glibcxx=$(newest "$out/$b" GLIBCXX_)
	if [[ -n $glibc ]] && ! le "$glibc" "$RUNTIME_GLIBC"; then
		echo "image-check: $b needs glibc $glibc, the runtime image has $RUNTIME_GLIBC" >&2
		fail=1
	fi
	if [[ -n $glibcxx ]] && ! le "$glibcxx" "$RUNTIME_GLIBCXX"; then
		echo "image-check: $b needs GLIBCXX_$glibcxx, the runtime image has $RUNTIME_GLIBCXX" >&2
		fail=1
	fi
	printf 'image-check: %-8s %-22s glibc>=%s libstdc++>=%s (runtime: %s, %s)\n' \
		"$b" "\"$v\"" "${glibc:--}" "${glibcxx:--}" "$RUNTIME_GLIBC" "$RUNTIME_GLIBCXX"
done
exit $fail
